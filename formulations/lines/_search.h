/* The compiled depth-first search (issue 42, fourth step; docs/line_core.md, "A compiled
 * search"), black-and-white puzzles only. Included by _core.c (it uses the Core, its memo of
 * settled lines and core_prop on packed states); not a compilation unit of its own.
 *
 * One node, on a packed state S (the words of Core's `buf` layout) already propagated:
 *
 *  1. a probe pass: every open cell, row by row, both colours: a copy of S with the cell set,
 *     propagated from its row and column. A (cell, colour) that an earlier probe of the same
 *     pass implied is skipped (its consequences are a subset of that probe's). A probe that
 *     contradicts is a failed literal: its colour is removed from S, S propagated (the node is
 *     dead when that contradicts). A probe that completes the grid is a solution: recorded, then
 *     its colour is removed the same way (that branch is explored). When both colours of a
 *     cell were probed and neither contradicted, S keeps only what one of the two fixed points
 *     allows (the cells both agree on are decided), propagated. A pass that changed S is
 *     followed by another;
 *  2. after a pass that changed nothing, a branch on the cell whose two probes cut the most
 *     (the larger min(a, b) + 1.85 log(1 + |a - b|), a and b the colour bits the two probes
 *     removed; nonosolve's / LalaFrogKK's score), the colour whose probe cut less first (the
 *     Python search's `hybrid` rule's order). When the first child's subtree is explored, its
 *     colour is removed from S and the node goes on (the second child, counted as a node).
 *
 * The search stops when it has enough solutions, at a node or probe budget (the rest is then
 * the CDCL fallback's, from the root), at the deadline, or on a pending signal (read every
 * DFS_TICK probes, and by core_prop every 256 line updates).
 */

#define DFS_TICK 64  /* probes between two reads of the clock and of pending signals */

enum { DFS_EXHAUSTED = 0, DFS_ENOUGH = 1, DFS_BUDGET = 2, DFS_TIMEOUT = 3, DFS_RESTART = 4,
       DFS_ERROR = -1 };

typedef struct {
    Core *c;
    size_t W;                 /* words of a packed state */
    long long done;           /* colour bits of a decided grid */
    long long nodes, probes, failed, agreed, found;
    long long max_nodes, max_probes, want;
    long long run_budget, run_nodes;  /* restarts: nodes of this run, -1 never */
    int order, run_order;     /* first colour: 0 white, 1 black, 2 larger cut, 3 smaller cut */
    double noise, run_noise;  /* restarts: scores times 1 + noise * uniform(0, 1) */
    u64 rng;
    /* incremental probing (nonosolve's stamps): a cell's probes are made again only when a line
     * their propagation settled has changed since. One block, saved per depth: */
    int incr, tw;             /* on; words of a bit set of lines */
    long long gstamp;
    u64 *info;                /* [lstamp nl][pst cells][cut0 cells][cut1 cells][touched cells x tw] */
    size_t info_words;
    u64 **saved;              /* per depth: the block before the first child */
    int nsaved;
    u64 *touched;             /* the lines a cell's probes settled, collected */
    int max_depth, ndepth;
    double end;               /* monotonic deadline, 0: none */
    Py_ssize_t cache_size;
    u64 **level;              /* per depth: the node's state (allocated on first use) */
    u64 *t0, *t1, *skip;      /* the two probes of a cell; colours implied within a pass */
    PyObject *sols;           /* the solutions found, packed (bytes) */
} Dfs;

static int dfs_prop_node(Dfs *D, u64 *s, const int *first, int n);

/* propagate w in place from lines first[0..n): 1 consistent, 0 contradiction, -1 error */
static int dfs_prop(Dfs *D, u64 *w, const int *first, int n)
{
    Core *c = D->c;
    c->wio = w;
    PyObject *r = core_prop(c, NULL, first, n, NULL, NULL, NULL, D->cache_size);
    c->wio = NULL;
    if (!r) return -1;
    int ok = r == Py_True;
    Py_DECREF(r);
    return ok;
}

INLINE int dfs_bit(const u64 *line, int p) { return (int)(line[p >> 6] >> (p & 63) & 1); }
INLINE void dfs_clear(u64 *line, int p) { line[p >> 6] &= ~((u64)1 << (p & 63)); }

/* remove colour ci from cell (i, j) of w (no propagation) */
static void dfs_remove(Dfs *D, u64 *w, int i, int j, int ci)
{
    Core *c = D->c;
    int h = c->h;
    dfs_clear(w + c->off[i] + (size_t)ci * c->specs[i].nw, j);
    dfs_clear(w + c->off[h + j] + (size_t)ci * c->specs[h + j].nw, i);
}

/* remove ci from (i, j) and propagate: 1 consistent, 0 contradiction, -1 error; *bits updated */
static int dfs_narrow(Dfs *D, u64 *w, int i, int j, int ci, long long *bits)
{
    int first[2] = {i, D->c->h + j};
    dfs_remove(D, w, i, j, ci);
    int r = dfs_prop_node(D, w, first, 2);
    if (r > 0) *bits -= 1 + D->c->removed;
    return r;
}

/* probe (i, j, ci) of s into t: 1 consistent (then *left its colour bits), 0 contradiction */
static int dfs_probe(Dfs *D, const u64 *s, u64 *t, int i, int j, int ci, long long bits,
                     long long *left)
{
    memcpy(t, s, D->W * sizeof(u64));
    D->probes++;
    int first[2] = {i, D->c->h + j};
    dfs_remove(D, t, i, j, 1 - ci);
    int r = dfs_prop(D, t, first, 2);
    if (r > 0) *left = bits - 1 - D->c->removed;
    return r;
}

static int dfs_solution(Dfs *D, const u64 *w)
{
    PyObject *b = PyBytes_FromStringAndSize((const char *)w, (Py_ssize_t)(D->W * sizeof(u64)));
    if (!b || PyList_Append(D->sols, b) < 0) { Py_XDECREF(b); return DFS_ERROR; }
    Py_DECREF(b);
    D->found++;
    return D->found >= D->want ? DFS_ENOUGH : DFS_EXHAUSTED;
}

/* the clock, pending signals and the budgets, before a probe */
static int dfs_tick(Dfs *D)
{
    if (D->max_probes >= 0 && D->probes >= D->max_probes) return DFS_BUDGET;
    if ((D->probes & (DFS_TICK - 1)) == 0) {
        if (PyErr_CheckSignals() < 0) return DFS_ERROR;
        if (D->end > 0 && monotonic_s() > D->end) return DFS_TIMEOUT;
    }
    return DFS_EXHAUSTED;
}

static u64 *dfs_level(Dfs *D, int depth)
{
    if (depth >= D->ndepth) {
        int n = D->ndepth ? D->ndepth * 2 : 64;
        while (n <= depth) n *= 2;
        u64 **nl = PyMem_Realloc(D->level, (size_t)n * sizeof(u64 *));
        if (!nl) { PyErr_NoMemory(); return NULL; }
        for (int k = D->ndepth; k < n; k++) nl[k] = NULL;
        D->level = nl;
        D->ndepth = n;
    }
    if (!D->level[depth] && !(D->level[depth] = PyMem_Malloc(D->W * sizeof(u64) + 8)))
        PyErr_NoMemory();
    return D->level[depth];
}

#define LSTAMP(D) ((long long *)(D)->info)
#define PST(D) ((long long *)(D)->info + (D)->c->nlines)
#define CUT0(D) (PST(D) + (size_t)(D)->c->h * (D)->c->w)
#define CUT1(D) (CUT0(D) + (size_t)(D)->c->h * (D)->c->w)
#define PTOUCH(D, cell) ((D)->info + (D)->c->nlines + 3 * (size_t)(D)->c->h * (D)->c->w \
                         + (size_t)(cell) * (D)->tw)

/* propagate s (the node's state) from first[0..n), the lines it narrows stamped */
static int dfs_prop_node(Dfs *D, u64 *s, const int *first, int n)
{
    Core *c = D->c;
    if (!D->incr) return dfs_prop(D, s, first, n);
    c->lstamp = LSTAMP(D);
    c->stamp = ++D->gstamp;
    for (int k = 0; k < n; k++) LSTAMP(D)[first[k]] = c->stamp;
    int r = dfs_prop(D, s, first, n);
    c->lstamp = NULL;
    return r;
}

/* the cell's probes, made on an earlier state, still hold: no line they settled has changed */
static int dfs_still(Dfs *D, int cell)
{
    long long t = PST(D)[cell];
    if (t <= 0) return 0;
    const u64 *tb = PTOUCH(D, cell);
    const long long *ls = LSTAMP(D);
    for (int q = 0; q < D->tw; q++) {
        u64 b = tb[q];
        while (b) {
            int l = q * 64 + CTZ(b);
            b &= b - 1;
            if (ls[l] > t) return 0;
        }
    }
    return 1;
}

static u64 *dfs_saved(Dfs *D, int depth)
{
    if (depth >= D->nsaved) {
        int n = D->nsaved ? D->nsaved * 2 : 64;
        while (n <= depth) n *= 2;
        u64 **ns = PyMem_Realloc(D->saved, (size_t)n * sizeof(u64 *));
        if (!ns) { PyErr_NoMemory(); return NULL; }
        for (int k = D->nsaved; k < n; k++) ns[k] = NULL;
        D->saved = ns;
        D->nsaved = n;
    }
    if (!D->saved[depth] && !(D->saved[depth] = PyMem_Malloc(D->info_words * sizeof(u64))))
        PyErr_NoMemory();
    return D->saved[depth];
}

/* mark in skip the (cell, colour)s that the probe state t decides and s leaves open */
static void dfs_implied(Dfs *D, const u64 *s, const u64 *t)
{
    Core *c = D->c;
    for (int i = 0; i < c->h; i++) {
        int nw = c->specs[i].nw;
        const u64 *s0 = s + c->off[i], *s1 = s0 + nw, *t0 = t + c->off[i], *t1 = t0 + nw;
        u64 *k0 = D->skip + c->off[i], *k1 = k0 + nw;
        for (int q = 0; q < nw; q++) {
            u64 open = s0[q] & s1[q];
            k0[q] |= open & t0[q] & ~t1[q];
            k1[q] |= open & t1[q] & ~t0[q];
        }
    }
}

/* s &= a | b (what one of two fixed points allows); the lines changed go to first[], count n */
static long long dfs_agree(Dfs *D, u64 *s, const u64 *a, const u64 *b, int *first, int *n)
{
    Core *c = D->c;
    long long cut = 0;
    *n = 0;
    for (int l = 0; l < c->nlines; l++) {
        size_t o = c->off[l], e = c->off[l + 1];
        int changed = 0;
        for (size_t q = o; q < e; q++) {
            u64 v = s[q] & (a[q] | b[q]);
            if (v != s[q]) {
                changed = 1;
                if (l < c->h) cut += POPC(s[q] ^ v);
                s[q] = v;
            }
        }
        if (changed) first[(*n)++] = l;
    }
    return cut;
}

/* the subtree of the node at `depth` (its state D->level[depth], propagated, `bits` colour bits) */
INLINE double dfs_urand(Dfs *D)
{
    D->rng ^= D->rng << 13;
    D->rng ^= D->rng >> 7;
    D->rng ^= D->rng << 17;
    return (double)(D->rng >> 11) * (1.0 / 9007199254740992.0);
}

static int dfs_node(Dfs *D, int depth, long long bits)
{
    Core *c = D->c;
    int h = c->h, r;
    u64 *s = D->level[depth];
    int *first = c->rnd;  /* core_prop uses rnd only with a record */
    if (depth > D->max_depth) D->max_depth = depth;
    for (;;) {  /* the node, then (after its first child) its second child in place */
        if (D->max_nodes >= 0 && D->nodes >= D->max_nodes) return DFS_BUDGET;
        if (D->run_budget >= 0 && ++D->run_nodes > D->run_budget) return DFS_RESTART;
        D->nodes++;
        int changed, bi, bj, bc = 0;
        double best_score;
        do {  /* probe passes until one changes nothing */
            if (bits == D->done) return dfs_solution(D, s);
            changed = 0;
            best_score = -1.0;
            bi = bj = -1;
            memset(D->skip, 0, D->W * sizeof(u64));
            for (int i = 0; i < h; i++) {
                int nw = c->specs[i].nw, n = c->specs[i].n;
                for (int j = 0; j < n; j++) {
                    const u64 *row = s + c->off[i];
                    if (!(dfs_bit(row, j) && dfs_bit(row + nw, j))) continue;  /* decided */
                    long long cut[2] = {-1, -1};
                    int okc[2] = {0, 0};
                    int cell = i * c->w + j;
                    if (D->incr && dfs_still(D, cell)) {  /* its two probes as they were */
                        cut[0] = CUT0(D)[cell];
                        cut[1] = CUT1(D)[cell];
                        okc[0] = okc[1] = 1;
                        goto score;
                    }
                    if (D->incr) {
                        PST(D)[cell] = 0;
                        memset(D->touched, 0, (size_t)D->tw * sizeof(u64));
                        c->touch = D->touched;
                    }
                    for (int ci = 0; ci < 2; ci++) {
                        if (dfs_bit(D->skip + c->off[i] + (size_t)ci * nw, j)) continue;
                        if ((r = dfs_tick(D)) != DFS_EXHAUSTED) return r;
                        u64 *t = ci ? D->t1 : D->t0;
                        long long left = 0;
                        int ok = dfs_probe(D, s, t, i, j, ci, bits, &left);
                        if (ok < 0) { c->touch = NULL; return DFS_ERROR; }
                        if (ok && left == D->done) {  /* a solution: that branch is explored */
                            if ((r = dfs_solution(D, t)) != DFS_EXHAUSTED) return r;
                            ok = 0;
                        } else if (!ok) {
                            D->failed++;
                        }
                        if (!ok) {  /* the other colour is the cell's */
                            c->touch = NULL;
                            int got = dfs_narrow(D, s, i, j, ci, &bits);
                            if (got < 0) return DFS_ERROR;
                            if (!got) return DFS_EXHAUSTED;  /* the node is dead */
                            if (bits == D->done) return dfs_solution(D, s);
                            changed = 1;
                            break;
                        }
                        okc[ci] = 1;
                        cut[ci] = bits - left;
                        dfs_implied(D, s, t);
                    }
                    c->touch = NULL;
                    if (!(okc[0] && okc[1])) continue;
                    if (D->incr) {  /* both probes made on this state: kept for later passes */
                        PST(D)[cell] = ++D->gstamp;
                        CUT0(D)[cell] = cut[0];
                        CUT1(D)[cell] = cut[1];
                        memcpy(PTOUCH(D, cell), D->touched, (size_t)D->tw * sizeof(u64));
                    }
                    int nf;
                    long long agreed = dfs_agree(D, s, D->t0, D->t1, first, &nf);
                    if (agreed) {  /* what both colours' fixed points decide */
                        D->agreed++;
                        int got = dfs_prop_node(D, s, first, nf);
                        if (got < 0) return DFS_ERROR;
                        if (!got) return DFS_EXHAUSTED;  /* cannot happen: t0 is inside */
                        bits -= agreed + c->removed;
                        if (bits == D->done) return dfs_solution(D, s);
                        changed = 1;
                    }
                score:;
                    long long a = cut[0], b = cut[1];
                    double sc = (double)(a < b ? a : b)
                        + 1.85 * log(1.0 + (double)(a > b ? a - b : b - a));
                    if (D->run_noise > 0) sc *= 1.0 + D->run_noise * dfs_urand(D);
                    if (sc > best_score) {
                        best_score = sc;
                        bi = i; bj = j;
                        switch (D->run_order) {
                        case 0: bc = 0; break;
                        case 1: bc = 1; break;
                        case 2: bc = a >= b ? 0 : 1; break;
                        default: bc = a <= b ? 0 : 1;
                        }
                    }
                }
            }
        } while (changed);
        if (bi < 0) {  /* every open cell's colours were implied by other probes: the first one */
            for (int i = 0; i < h && bi < 0; i++) {
                int nw = c->specs[i].nw;
                const u64 *row = s + c->off[i];
                for (int j = 0; j < c->specs[i].n; j++)
                    if (dfs_bit(row, j) && dfs_bit(row + nw, j)) { bi = i; bj = j; bc = 0; break; }
            }
        }
        /* the first child: the branch cell with the colour whose probe cut less */
        u64 *child = dfs_level(D, depth + 1);
        if (!child) return DFS_ERROR;
        long long left = 0;
        if ((r = dfs_tick(D)) != DFS_EXHAUSTED) return r;
        int ok = dfs_probe(D, s, child, bi, bj, bc, bits, &left);
        if (ok < 0) return DFS_ERROR;
        if (ok) {
            u64 *keep = NULL;
            if (D->incr && left != D->done) {  /* the block kept; the child's lines stamped */
                if (!(keep = dfs_saved(D, depth))) return DFS_ERROR;
                memcpy(keep, D->info, D->info_words * sizeof(u64));
                long long st = ++D->gstamp;
                for (int l = 0; l < c->nlines; l++)
                    if (memcmp(s + c->off[l], child + c->off[l],
                               (c->off[l + 1] - c->off[l]) * sizeof(u64)))
                        LSTAMP(D)[l] = st;
            }
            r = left == D->done ? dfs_solution(D, child) : dfs_node(D, depth + 1, left);
            if (r != DFS_EXHAUSTED) return r;
            if (keep) memcpy(D->info, keep, D->info_words * sizeof(u64));
        }
        /* the second child: the other colour, in place */
        int got = dfs_narrow(D, s, bi, bj, bc, &bits);
        if (got < 0) return DFS_ERROR;
        if (!got) return DFS_EXHAUSTED;
    }
}

/* Luby's sequence 1 1 2 1 1 2 4 ... (i from 0) */
static long long dfs_luby(long long i)
{
    long long size = 1, seq = 0;
    while (size < i + 1) { seq++; size = 2 * size + 1; }
    while (size - 1 != i) { size = (size - 1) >> 1; seq--; i = i % size; }
    return 1LL << seq;
}

PyDoc_STRVAR(dfs_doc,
"dfs(state, max_solutions, max_nodes, max_probes, seconds_left, cache_size[, restart_base,\n"
"    order, noise, incremental]) -> (code, solutions, nodes, probes, failed, agreed, max_depth)\n\n"
"The compiled depth-first search (black-and-white puzzles; see _search.h) from a propagated\n"
"state list. code 0: the tree was explored (the solutions are all there are); 1: max_solutions\n"
"found; 2: the node or probe budget (-1: none) ran out; 3: seconds_left (<= 0: no limit)\n"
"passed. solutions: packed states (bytes; Core.unpack makes them state lists).\n"
"restart_base > 0 (max_solutions 1 only): Luby restarts of restart_base nodes a unit from the\n"
"root (as narrowed by explored subtrees), the first colour's order swapped every other run,\n"
"scores times 1 + noise * uniform(0, 1) from the third run. order: the first colour (0 white,\n"
"1 black, 2 the larger cut, 3 the smaller cut). incremental: a cell's two probes are made again\n"
"only when a line their propagation settled has changed since (nonosolve's stamps).");
static PyObject *Core_dfs(Core *c, PyObject *args)
{
    PyObject *state;
    long long want, max_nodes, max_probes;
    double left_s, noise = 0.5;
    Py_ssize_t cache_size;
    long long restart_base = 0;
    int order = 3, incr = 0;
    if (!PyArg_ParseTuple(args, "O!LLLdn|Lidp", &PyList_Type, &state, &want, &max_nodes,
                          &max_probes, &left_s, &cache_size, &restart_base, &order, &noise,
                          &incr))
        return NULL;
    if (c->C != 2) { PyErr_SetString(PyExc_ValueError, "dfs: black-and-white puzzles only"); return NULL; }
    if (PyList_GET_SIZE(state) != (Py_ssize_t)c->nlines * c->C) {
        PyErr_SetString(PyExc_ValueError, "state has the wrong length");
        return NULL;
    }
    Dfs D;
    memset(&D, 0, sizeof(D));
    D.c = c;
    D.W = c->off[c->nlines];
    D.want = want < 1 ? 1 : want;
    D.max_nodes = max_nodes;
    D.max_probes = max_probes;
    D.cache_size = cache_size;
    D.end = left_s > 0 ? monotonic_s() + left_s : 0;
    D.order = order;
    D.noise = noise;
    D.rng = 0x9E3779B97F4A7C15ULL;
    D.incr = incr;
    D.tw = (c->nlines + 63) / 64;
    D.info_words = (size_t)c->nlines + (size_t)c->h * c->w * (3 + (size_t)D.tw);
    PyObject *result = NULL;
    size_t bytes = (D.W ? D.W : 1) * sizeof(u64);
    D.t0 = PyMem_Malloc(bytes);
    D.t1 = PyMem_Malloc(bytes);
    D.skip = PyMem_Malloc(bytes);
    D.info = PyMem_Calloc(D.info_words ? D.info_words : 1, sizeof(u64));
    D.touched = PyMem_Calloc((size_t)D.tw + 1, sizeof(u64));
    if (!D.info || !D.touched) { PyErr_NoMemory(); goto out; }
    D.sols = PyList_New(0);
    u64 *root = D.sols ? dfs_level(&D, 0) : NULL;
    if (!D.t0 || !D.t1 || !D.skip || !D.sols || !root) { if (!PyErr_Occurred()) PyErr_NoMemory(); goto out; }
    if (state_to_words(c, state, root) < 0) goto out;
    long long bits = 0;
    for (int i = 0; i < c->h; i++)
        for (size_t q = c->off[i]; q < c->off[i + 1]; q++) bits += POPC(root[q]);
    D.done = (long long)c->h * c->w;
    int code;
    if (!(c->h && c->w)) {
        code = dfs_solution(&D, root);
    } else if (restart_base <= 0 || D.want > 1) {
        D.run_budget = -1;
        D.run_order = D.order;
        code = dfs_node(&D, 0, bits);
    } else {
        for (long long run = 0;; run++) {
            D.run_budget = restart_base * dfs_luby(run);
            D.run_nodes = 0;
            D.run_order = run % 2 == 0 ? D.order : D.order == 0 ? 1 : D.order == 1 ? 0
                          : D.order == 2 ? 3 : 2;
            D.run_noise = run < 2 ? 0.0 : D.noise;
            code = dfs_node(&D, 0, bits);
            if (code != DFS_RESTART) break;
            memset(D.info, 0, D.info_words * sizeof(u64));  /* no probe of a run holds */
            bits = 0;  /* the root as the runs' explored subtrees narrowed it */
            for (int i = 0; i < c->h; i++)
                for (size_t q = c->off[i]; q < c->off[i + 1]; q++) bits += POPC(root[q]);
        }
    }
    if (code == DFS_ERROR) goto out;
    if (code == DFS_ENOUGH && D.found < D.want) code = DFS_EXHAUSTED;
    result = Py_BuildValue("(iOLLLLi)", code, D.sols, D.nodes, D.probes, D.failed, D.agreed,
                           D.max_depth);
out:
    for (int k = 0; k < D.ndepth; k++) PyMem_Free(D.level[k]);
    PyMem_Free(D.level);
    PyMem_Free(D.t0);
    PyMem_Free(D.t1);
    PyMem_Free(D.skip);
    PyMem_Free(D.info);
    PyMem_Free(D.touched);
    for (int k = 0; k < D.nsaved; k++) PyMem_Free(D.saved[k]);
    PyMem_Free(D.saved);
    c->touch = NULL;
    c->lstamp = NULL;
    Py_XDECREF(D.sols);
    return result;
}
