/* Belief-propagation phases for the CDCL fallback's residual (formulations/lines/phases.py says
 * what and why): weighted forward-backward line marginals, rows and columns exchanging
 * messages for a number of rounds, then a preferred literal for every cell and every order /
 * cover variable. Compiled because the rounds cost 0.155 s of Python on a 25x25 tournament
 * residual, paid on every puzzle that reaches the fallback; here 4 ms with the call's
 * Python around it. The arithmetic is the Python version's, operation for operation (docs/line_core.md,
 * tenth step); setup.py builds it with -ffp-contract=off, so that no compiler fuses a multiply
 * and an add where Python rounded twice. Kept apart from _core.c, the engine's core. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <string.h>
#include <time.h>

#define MSG_EPS 1e-6
#define POST_EPS 1e-9

typedef struct {
    int n, k;                 /* the largest line and clue */
    int *kw;                  /* known-white cells before i, n + 1 */
    double *lw, *white;       /* log black weights before i (n + 1); white weight of i (n) */
    double *fit, *f, *b;      /* k x n; (k + 1) x (n + 2) twice */
    double *diff;             /* n + 1 */
} Work;

static void work_free(Work *W)
{
    PyMem_Free(W->kw); PyMem_Free(W->lw); PyMem_Free(W->white);
    PyMem_Free(W->fit); PyMem_Free(W->f); PyMem_Free(W->b); PyMem_Free(W->diff);
}

static int work_init(Work *W, int n, int k)
{
    memset(W, 0, sizeof *W);
    W->n = n; W->k = k;
    size_t kk = (size_t)(k > 0 ? k : 1), n2 = (size_t)n + 2;
    W->kw = PyMem_Calloc((size_t)n + 1, sizeof(int));
    W->lw = PyMem_Calloc((size_t)n + 1, sizeof(double));
    W->white = PyMem_Calloc((size_t)n + 1, sizeof(double));
    W->fit = PyMem_Calloc(kk * (size_t)(n + 1), sizeof(double));
    W->f = PyMem_Calloc((kk + 1) * n2, sizeof(double));
    W->b = PyMem_Calloc((kk + 1) * n2, sizeof(double));
    W->diff = PyMem_Calloc((size_t)n + 1, sizeof(double));
    if (!W->kw || !W->lw || !W->white || !W->fit || !W->f || !W->b || !W->diff) {
        work_free(W);
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* The marginals of one line of n cells with clue lens[0..k): known[i] 0 white, 1 black, 2
 * open; a completion weighted by wb[i] over its black cells and 1 - wb[i] over its white ones.
 * black[i] the probability cell i is black; starts[j * n + p] block j's start at p (NULL: not
 * wanted). 0 when no completion is left. phases.py's former Python version, line by line. */
static int marginals(Work *W, int n, const int *lens, int k, const signed char *known,
                     const double *wb, double *black, double *starts)
{
    if (k == 0) {
        for (int i = 0; i < n; i++)
            if (known[i] == 1) return 0;
        for (int i = 0; i < n; i++) black[i] = 0.0;
        return 1;
    }
    int *kw = W->kw;
    double *lw = W->lw, *white = W->white;
    kw[0] = 0;
    lw[0] = 0.0;
    for (int i = 0; i < n; i++) {
        kw[i + 1] = kw[i] + (known[i] == 0);
        lw[i + 1] = lw[i] + log(wb[i]);
    }
    for (int i = 0; i < n; i++) white[i] = known[i] != 1 ? 1.0 - wb[i] : 0.0;
    const int end = n + 1, n2 = n + 2;
    double *fit = W->fit;
#define FIT(j, i) fit[(size_t)(j) * n + (i)]
#define F(j, i) W->f[(size_t)(j) * n2 + (i)]
#define B(j, i) W->b[(size_t)(j) * n2 + (i)]
    for (int j = 0; j < k; j++) {
        int L = lens[j];
        for (int i = 0; i < n; i++) {
            double v = 0.0;
            int e = i + L;
            if (e <= n && kw[e] == kw[i] && (e >= n || known[e] != 1))
                v = exp(lw[e] - lw[i]) * (e < n ? white[e] : 1.0);
            FIT(j, i) = v;
        }
    }
    memset(W->f, 0, (size_t)(k + 1) * n2 * sizeof(double));
    memset(W->b, 0, (size_t)(k + 1) * n2 * sizeof(double));
    F(0, 0) = 1.0;
    for (int i = 0; i < n; i++) {
        double wi = white[i];
        for (int j = 0; j <= k; j++) {
            double v = F(j, i);
            if (v == 0.0) continue;
            if (wi != 0.0) F(j, i + 1) += v * wi;
            if (j < k && FIT(j, i) != 0.0) {
                int t = i + lens[j] + 1;
                F(j + 1, t < end ? t : end) += v * FIT(j, i);
            }
        }
    }
    B(k, end) = B(k, n) = 1.0;
    for (int i = n - 1; i >= 0; i--) {
        double wi = white[i];
        for (int j = k; j >= 0; j--) {
            double v = wi != 0.0 ? B(j, i + 1) * wi : 0.0;
            if (j < k && FIT(j, i) != 0.0) {
                int t = i + lens[j] + 1;
                v += B(j + 1, t < end ? t : end) * FIT(j, i);
            }
            B(j, i) = v;
        }
    }
    double total = B(0, 0);
    if (!(total > 0) || !isfinite(total)) return 0;
    double *diff = W->diff;
    memset(diff, 0, ((size_t)n + 1) * sizeof(double));
    if (starts) memset(starts, 0, (size_t)k * n * sizeof(double));
    for (int j = 0; j < k; j++) {
        int L = lens[j];
        for (int p = 0; p + L <= n; p++) {
            if (F(j, p) != 0.0 && FIT(j, p) != 0.0) {
                int t = p + L + 1;
                double pr = F(j, p) * FIT(j, p) * B(j + 1, t < end ? t : end) / total;
                if (starts) starts[(size_t)j * n + p] = pr;
                diff[p] += pr;
                diff[p + L] -= pr;
            }
        }
    }
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += diff[i];
        black[i] = s;
    }
    return 1;
#undef FIT
#undef F
#undef B
}

/* the extrinsic message: the posterior with the incoming prior divided out, clamped */
static double message(double post, double prior)
{
    post = post > POST_EPS ? post : POST_EPS;  /* max, then min, as Python did (NaN: POST_EPS) */
    post = post < 1 - POST_EPS ? post : 1 - POST_EPS;
    double y = post * (1 - prior), z = (1 - post) * prior, r = y / (y + z);
    r = r > MSG_EPS ? r : MSG_EPS;
    return r < 1 - MSG_EPS ? r : 1 - MSG_EPS;
}

static double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* a clue as a C array (new memory, *k its length): -1 on error */
static int clue_in(PyObject *seq, int **out, int *k)
{
    PyObject *fast = PySequence_Fast(seq, "a clue is a sequence of block lengths");
    if (!fast) return -1;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(fast);
    int *a = PyMem_Calloc((size_t)(m > 0 ? m : 1), sizeof(int));
    if (!a) { Py_DECREF(fast); PyErr_NoMemory(); return -1; }
    for (Py_ssize_t q = 0; q < m; q++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, q));
        if (v == -1 && PyErr_Occurred()) { PyMem_Free(a); Py_DECREF(fast); return -1; }
        if (v < 1) {
            PyMem_Free(a); Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "a block length is at least 1");
            return -1;
        }
        a[q] = (int)v;
    }
    Py_DECREF(fast);
    *out = a;
    *k = (int)m;
    return 0;
}

/* a new list of the n doubles of a, or NULL (exception set) */
static PyObject *float_list(const double *a, int n)
{
    PyObject *out = PyList_New(n);
    for (int i = 0; out && i < n; i++) {
        PyObject *x = PyFloat_FromDouble(a[i]);
        if (!x) { Py_CLEAR(out); break; }
        PyList_SET_ITEM(out, i, x);
    }
    return out;
}

PyDoc_STRVAR(line_marginals_doc,
"line_marginals(n, lens, known, wb) -> (black, starts) | None\n\n"
"Each cell's probability of being black and each block's start probabilities over the\n"
"completions of clue `lens` on n cells consistent with `known` (1 black, 0 white, -1 open),\n"
"a completion weighted by the product of wb[i] over its black cells and 1 - wb[i] over its\n"
"white ones; None when no completion is left.");

static PyObject *py_line_marginals(PyObject *self, PyObject *args)
{
    int n;
    PyObject *lens_o, *known_o, *wb_o;
    if (!PyArg_ParseTuple(args, "iOOO", &n, &lens_o, &known_o, &wb_o)) return NULL;
    if (n < 0) { PyErr_SetString(PyExc_ValueError, "n is negative"); return NULL; }
    int *lens = NULL, k = 0;
    if (clue_in(lens_o, &lens, &k) < 0) return NULL;
    PyObject *res = NULL, *kf = NULL, *wf = NULL;
    signed char *known = PyMem_Calloc((size_t)n + 1, 1);
    double *wb = PyMem_Calloc((size_t)n + 1, sizeof(double));
    double *black = PyMem_Calloc((size_t)n + 1, sizeof(double));
    double *starts = PyMem_Calloc((size_t)(k > 0 ? k : 1) * (size_t)(n + 1), sizeof(double));
    Work W;
    int have_work = 0;
    if (!known || !wb || !black || !starts) { PyErr_NoMemory(); goto done; }
    kf = PySequence_Fast(known_o, "known is a sequence");
    wf = kf ? PySequence_Fast(wb_o, "wb is a sequence") : NULL;
    if (!wf) goto done;
    if (PySequence_Fast_GET_SIZE(kf) != n || PySequence_Fast_GET_SIZE(wf) != n) {
        PyErr_SetString(PyExc_ValueError, "known and wb have n items");
        goto done;
    }
    for (int i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(kf, i));
        if (v == -1 && PyErr_Occurred()) goto done;
        double x = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(wf, i));
        if (x == -1.0 && PyErr_Occurred()) goto done;
        known[i] = (signed char)(v == 0 ? 0 : v == 1 ? 1 : 2);
        wb[i] = x;
    }
    if (work_init(&W, n, k) < 0) goto done;
    have_work = 1;
    if (!marginals(&W, n, lens, k, known, wb, black, starts)) {
        res = Py_NewRef(Py_None);
        goto done;
    }
    PyObject *bl = float_list(black, n), *st = PyList_New(k);
    if (!bl || !st) { Py_XDECREF(bl); Py_XDECREF(st); goto done; }
    for (int j = 0; j < k; j++) {
        PyObject *row = float_list(starts + (size_t)j * n, n);
        if (!row) { Py_DECREF(bl); Py_DECREF(st); goto done; }
        PyList_SET_ITEM(st, j, row);
    }
    res = PyTuple_Pack(2, bl, st);
    Py_DECREF(bl);
    Py_DECREF(st);
done:
    if (have_work) work_free(&W);
    Py_XDECREF(kf); Py_XDECREF(wf);
    PyMem_Free(lens); PyMem_Free(known); PyMem_Free(wb); PyMem_Free(black); PyMem_Free(starts);
    return res;
}

PyDoc_STRVAR(phases_doc,
"phases(h, w, clues, known, meta, rounds, seconds_left) -> list[int] | None\n\n"
"Preferred literals: the cells (variable i * w + j + 1, row-major) first, then the variables\n"
"of `meta` in its order (var -> (kind, line, block, p): kind 'Y' the block starts at or\n"
"before p, 'C' the block covers cell p; a line with no completion left gives none).\n"
"`clues`: the h row clues then the w column clues; `known`: h * w bytes, 0 white, 1 black,\n"
"2 open. `rounds` rounds of damped row and column messages. None when `seconds_left` (< 0:\n"
"no limit) runs out before the rounds are done; pending signals are raised between rounds.");

static PyObject *py_phases(PyObject *self, PyObject *args)
{
    int h, w, rounds;
    PyObject *clues_o, *meta;
    Py_buffer kb;
    double left;
    if (!PyArg_ParseTuple(args, "iiOy*O!id", &h, &w, &clues_o, &kb, &PyDict_Type, &meta,
                          &rounds, &left))
        return NULL;
    PyObject *res = NULL, *cf = NULL;
    int nl = h + w, maxn = h > w ? h : w, maxk = 0;
    int **lens = NULL, *ks = NULL;
    double *to_row = NULL, *to_col = NULL, *wb = NULL, *black = NULL, **starts = NULL;
    signed char *kn = NULL;
    Work W;
    int have_work = 0;
    if (h < 1 || w < 1 || kb.len != (Py_ssize_t)h * w) {
        PyErr_SetString(PyExc_ValueError, "known has h * w bytes");
        goto done;
    }
    const unsigned char *known = kb.buf;
    cf = PySequence_Fast(clues_o, "clues is a sequence");
    if (!cf) goto done;
    if (PySequence_Fast_GET_SIZE(cf) != nl) {
        PyErr_SetString(PyExc_ValueError, "clues has h + w items");
        goto done;
    }
    lens = PyMem_Calloc((size_t)nl, sizeof(int *));
    ks = PyMem_Calloc((size_t)nl, sizeof(int));
    starts = PyMem_Calloc((size_t)nl, sizeof(double *));
    to_row = PyMem_Calloc((size_t)h * w, sizeof(double));
    to_col = PyMem_Calloc((size_t)h * w, sizeof(double));
    wb = PyMem_Calloc((size_t)maxn, sizeof(double));
    black = PyMem_Calloc((size_t)maxn, sizeof(double));
    kn = PyMem_Calloc((size_t)maxn, 1);
    if (!lens || !ks || !starts || !to_row || !to_col || !wb || !black || !kn) {
        PyErr_NoMemory();
        goto done;
    }
    for (int l = 0; l < nl; l++) {
        if (clue_in(PySequence_Fast_GET_ITEM(cf, l), &lens[l], &ks[l]) < 0) goto done;
        if (ks[l] > maxk) maxk = ks[l];
    }
    if (work_init(&W, maxn, maxk) < 0) goto done;
    have_work = 1;
    for (size_t q = 0; q < (size_t)h * w; q++) to_row[q] = to_col[q] = 0.5;
    const double end = left >= 0 ? monotonic_s() + left : 0.0;
    for (int r = 0; r < rounds; r++) {
        if (PyErr_CheckSignals() < 0) goto done;
        if (left >= 0 && monotonic_s() >= end) { res = Py_NewRef(Py_None); goto done; }
        for (int i = 0; i < h; i++) {
            for (int j = 0; j < w; j++) {
                wb[j] = to_col[(size_t)i * w + j];
                kn[j] = (signed char)known[(size_t)i * w + j];
            }
            if (marginals(&W, w, lens[i], ks[i], kn, wb, black, NULL))
                for (int j = 0; j < w; j++) {
                    double *m = &to_row[(size_t)i * w + j];
                    *m = 0.5 * *m + 0.5 * message(black[j], wb[j]);
                }
        }
        for (int j = 0; j < w; j++) {
            for (int i = 0; i < h; i++) {
                wb[i] = to_row[(size_t)i * w + j];
                kn[i] = (signed char)known[(size_t)i * w + j];
            }
            if (marginals(&W, h, lens[h + j], ks[h + j], kn, wb, black, NULL))
                for (int i = 0; i < h; i++) {
                    double *m = &to_col[(size_t)i * w + j];
                    *m = 0.5 * *m + 0.5 * message(black[i], wb[i]);
                }
        }
    }
    /* every line's start marginals under the final messages (NULL: no completion) */
    for (int l = 0; l < nl; l++) {
        int row = l < h, n = row ? w : h;
        if (!(starts[l] = PyMem_Calloc((size_t)(ks[l] > 0 ? ks[l] : 1) * n, sizeof(double)))) {
            PyErr_NoMemory();
            goto done;
        }
        for (int q = 0; q < n; q++) {
            size_t cell = row ? (size_t)l * w + q : (size_t)q * w + (l - h);
            wb[q] = row ? to_col[cell] : to_row[cell];
            kn[q] = (signed char)known[cell];
        }
        if (!marginals(&W, n, lens[l], ks[l], kn, wb, black, starts[l])) {
            PyMem_Free(starts[l]);
            starts[l] = NULL;
        }
    }
    PyObject *out = PyList_New(0);
    if (!out) goto done;
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++) {
            double a = to_row[(size_t)i * w + j], c = to_col[(size_t)i * w + j];
            long v = (long)i * w + j + 1;
            PyObject *lit = PyLong_FromLong(a * c >= (1 - a) * (1 - c) ? v : -v);
            if (!lit || PyList_Append(out, lit) < 0) { Py_XDECREF(lit); Py_DECREF(out); goto done; }
            Py_DECREF(lit);
        }
    Py_ssize_t pos = 0;
    PyObject *key, *val;
    while (PyDict_Next(meta, &pos, &key, &val)) {
        PyObject *kind_o;
        long var = PyLong_AsLong(key);
        int line, blk, p;
        if (var == -1 && PyErr_Occurred()) { Py_DECREF(out); goto done; }
        if (!PyArg_ParseTuple(val, "Uiii", &kind_o, &line, &blk, &p)) { Py_DECREF(out); goto done; }
        if (line < 0 || line >= nl || blk < 0 || blk >= ks[line]) {
            PyErr_SetString(PyExc_ValueError, "meta names a block that is not there");
            Py_DECREF(out);
            goto done;
        }
        const double *s = starts[line];
        if (!s) continue;
        int n = line < h ? w : h, from = 0;
        if (PyUnicode_GET_LENGTH(kind_o) == 1 && PyUnicode_READ_CHAR(kind_o, 0) == 'C') {
            from = p - lens[line][blk] + 1;
            if (from < 0) from = 0;
        }
        double acc = 0.0;  /* left to right, as Python 3.11's sum() over the slice was */
        for (int q = from; q <= p && q < n; q++) acc += s[(size_t)blk * n + q];
        PyObject *lit = PyLong_FromLong(acc >= 0.5 ? var : -var);
        if (!lit || PyList_Append(out, lit) < 0) { Py_XDECREF(lit); Py_DECREF(out); goto done; }
        Py_DECREF(lit);
    }
    res = out;
done:
    if (have_work) work_free(&W);
    if (lens) for (int l = 0; l < nl; l++) PyMem_Free(lens[l]);
    if (starts) for (int l = 0; l < nl; l++) PyMem_Free(starts[l]);
    PyMem_Free(lens); PyMem_Free(ks); PyMem_Free(starts);
    PyMem_Free(to_row); PyMem_Free(to_col); PyMem_Free(wb); PyMem_Free(black); PyMem_Free(kn);
    Py_XDECREF(cf);
    PyBuffer_Release(&kb);
    return res;
}

static PyMethodDef methods[] = {
    {"line_marginals", py_line_marginals, METH_VARARGS, line_marginals_doc},
    {"phases", py_phases, METH_VARARGS, phases_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_bp",
    "Belief-propagation phases for the CDCL fallback (formulations/lines/phases.py).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__bp(void) { return PyModule_Create(&module); }
