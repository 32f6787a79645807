/* Placement counts for the deduction trace (formulations/lines/explain.py, issue 43): how many
 * placements of a line's clue agree with its masks, exactly, for lines of up to 127 cells
 * (128-bit counts; a line of n cells has fewer than 2^n placements). Longer lines: None, and the
 * caller counts with Python's integers. Kept apart from _core.c, the engine's core. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;
#define MAX_N 127

static int mask_in(PyObject *x, u128 *out, long n)
{
    unsigned long long lo = PyLong_AsUnsignedLongLongMask(x);
    if (lo == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    if (n <= 64) { *out = lo; return 0; }  /* a line of at most 64 cells: one word */
    PyObject *sh = PyLong_FromLong(64);
    PyObject *hi_o = sh ? PyNumber_Rshift(x, sh) : NULL;
    Py_XDECREF(sh);
    if (!hi_o) return -1;
    unsigned long long hi = PyLong_AsUnsignedLongLongMask(hi_o);
    Py_DECREF(hi_o);
    if (hi == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = ((u128)hi << 64) | lo;
    return 0;
}

static PyObject *u128_out(u128 v)
{
    if (!(v >> 64)) return PyLong_FromUnsignedLongLong((unsigned long long)v);
    PyObject *hi = PyLong_FromUnsignedLongLong((unsigned long long)(v >> 64));
    PyObject *lo = PyLong_FromUnsignedLongLong((unsigned long long)v);
    PyObject *sh = PyLong_FromLong(64);
    PyObject *a = (hi && sh) ? PyNumber_Lshift(hi, sh) : NULL;
    PyObject *r = (a && lo) ? PyNumber_Or(a, lo) : NULL;
    Py_XDECREF(hi); Py_XDECREF(lo); Py_XDECREF(sh); Py_XDECREF(a);
    return r;
}

/* The placements of blocks (lens, cidx, gaps: borrowed sequences of m items) on n cells whose
 * cells allow their colour in M[0..C-1]; -1 on a Python error (set). */
static int count_core(long n, PyObject *lens, PyObject *cidx, PyObject *gaps, Py_ssize_t m,
                      const u128 *M, Py_ssize_t C, u128 *out)
{
    u128 W = M[0];
    u128 nxt[MAX_N + 2], cur[MAX_N + 2];
    size_t used = sizeof(u128) * (size_t)(n + 2);  /* only the line's cells are touched */
    memset(nxt, 0, used);
    nxt[n] = 1;
    for (long p = n - 1; p >= 0; p--) nxt[p] = ((W >> p) & 1) ? nxt[p + 1] : 0;
    for (Py_ssize_t k = m - 1; k >= 0; k--) {
        long L = PyLong_AsLong(PySequence_Fast_GET_ITEM(lens, k));
        long ci = PyLong_AsLong(PySequence_Fast_GET_ITEM(cidx, k));
        if (PyErr_Occurred()) return -1;
        if (ci < 0 || ci >= C || L < 1) { PyErr_SetString(PyExc_ValueError, "bad block"); return -1; }
        int gap = 0;
        if (k < m - 1) {
            int t = PyObject_IsTrue(PySequence_Fast_GET_ITEM(gaps, k));
            if (t < 0) return -1;
            gap = t;
        }
        u128 B = M[ci];
        u128 full = L >= 128 ? ~(u128)0 : (((u128)1 << L) - 1);
        memset(cur, 0, used);
        for (long p = n - L; p >= 0; p--) {
            u128 total = ((W >> p) & 1) ? cur[p + 1] : 0;
            if (((B >> p) & full) == full) {
                long e = p + L;
                if (!gap) total += nxt[e];
                else if (e < n && ((W >> e) & 1)) total += nxt[e + 1];
            }
            cur[p] = total;
        }
        memcpy(nxt, cur, used);
    }
    *out = nxt[0];
    return 0;
}
#endif

PyDoc_STRVAR(count_doc,
"count(spec, masks) -> int | None\n\n"
"Placements of the line spec (n, block lengths, block colour indices, gap-after-block flags)\n"
"whose cells all allow their colour in `masks` (one position bit set per colour index, index 0\n"
"the background). None for a line of more than 127 cells.");

static PyObject *py_count(PyObject *self, PyObject *args)
{
    PyObject *spec, *masks;
    if (!PyArg_ParseTuple(args, "OO", &spec, &masks)) return NULL;
#ifndef __SIZEOF_INT128__
    Py_RETURN_NONE;
#else
    if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 4) {
        PyErr_SetString(PyExc_TypeError, "spec must be (n, lens, cidx, gaps)");
        return NULL;
    }
    long n = PyLong_AsLong(PyTuple_GET_ITEM(spec, 0));
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 0 || n > MAX_N) Py_RETURN_NONE;
    PyObject *lens = PySequence_Fast(PyTuple_GET_ITEM(spec, 1), "lens");
    PyObject *cidx = lens ? PySequence_Fast(PyTuple_GET_ITEM(spec, 2), "cidx") : NULL;
    PyObject *gaps = cidx ? PySequence_Fast(PyTuple_GET_ITEM(spec, 3), "gaps") : NULL;
    PyObject *ms = gaps ? PySequence_Fast(masks, "masks") : NULL;
    PyObject *result = NULL;
    if (!ms) goto done;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(lens), C = PySequence_Fast_GET_SIZE(ms);
    if (C < 1 || C > 64 || PySequence_Fast_GET_SIZE(cidx) != m) {
        PyErr_SetString(PyExc_ValueError, "bad masks or spec");
        goto done;
    }
    u128 M[64];
    for (Py_ssize_t c = 0; c < C; c++)
        if (mask_in(PySequence_Fast_GET_ITEM(ms, c), &M[c], n) < 0) goto done;
    u128 got;
    if (count_core(n, lens, cidx, gaps, m, M, C, &got) < 0) goto done;
    result = u128_out(got);
done:
    Py_XDECREF(lens); Py_XDECREF(cidx); Py_XDECREF(gaps); Py_XDECREF(ms);
    return result;
#endif
}

#ifdef __SIZEOF_INT128__
PyDoc_STRVAR(steps_bw_doc,
"steps_bw(record, h, black, specs, counts) -> [(line, cells, placements), ...]\n\n"
"The trace's line steps of a black-and-white propagation in one call: `record` is the line\n"
"engine's record, (line, round, masks before, masks after, changed cells) per update; `cells`\n"
"are the (row, column, value) the update decided (value `black` or 0), in the line's order;\n"
"`placements` the placements of specs[line] agreeing with the masks before (None unless\n"
"`counts`). Lines of at most 127 cells (the caller checks).");

static PyObject *py_steps_bw(PyObject *self, PyObject *args)
{
    PyObject *record, *specs, *black;
    long h;
    int counts;
    if (!PyArg_ParseTuple(args, "O!lOO!p", &PyList_Type, &record, &h, &black, &PyList_Type,
                          &specs, &counts))
        return NULL;
    Py_ssize_t nrec = PyList_GET_SIZE(record), nspecs = PyList_GET_SIZE(specs);
    PyObject *out = PyList_New(nrec);
    if (!out) return NULL;
    PyObject *zero = PyLong_FromLong(0);
    if (!zero) { Py_DECREF(out); return NULL; }
    for (Py_ssize_t r = 0; r < nrec; r++) {
        PyObject *rec = PyList_GET_ITEM(record, r);
        if (!PyTuple_Check(rec) || PyTuple_GET_SIZE(rec) != 5) {
            PyErr_SetString(PyExc_TypeError, "a record is (line, round, old, new, changed)");
            goto fail;
        }
        long lid = PyLong_AsLong(PyTuple_GET_ITEM(rec, 0));
        if (lid == -1 && PyErr_Occurred()) goto fail;
        PyObject *old = PyTuple_GET_ITEM(rec, 2), *res = PyTuple_GET_ITEM(rec, 3);
        if (lid < 0 || lid >= nspecs || !PyTuple_Check(old) || PyTuple_GET_SIZE(old) != 2
            || !PyTuple_Check(res) || PyTuple_GET_SIZE(res) != 2) {
            PyErr_SetString(PyExc_ValueError, "bad record");
            goto fail;
        }
        PyObject *spec = PyList_GET_ITEM(specs, lid);
        if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 4) {
            PyErr_SetString(PyExc_TypeError, "spec must be (n, lens, cidx, gaps)");
            goto fail;
        }
        long n = PyLong_AsLong(PyTuple_GET_ITEM(spec, 0));
        if (n == -1 && PyErr_Occurred()) goto fail;
        if (n < 0 || n > MAX_N) { PyErr_SetString(PyExc_ValueError, "line too long"); goto fail; }
        u128 K, ch;
        if (mask_in(PyTuple_GET_ITEM(res, 1), &K, n) < 0
            || mask_in(PyTuple_GET_ITEM(rec, 4), &ch, n) < 0) goto fail;
        int nb = 0;
        for (u128 x = ch; x; x &= x - 1) nb++;
        PyObject *cells = PyTuple_New(nb);
        if (!cells) goto fail;
        int q = 0;
        for (long p = 0; p < n && q < nb; p++) {
            if (!((ch >> p) & 1)) continue;
            long i = lid < h ? lid : p, j = lid < h ? p : lid - h;
            PyObject *v = ((K >> p) & 1) ? black : zero;
            PyObject *pi = PyLong_FromLong(i), *pj = PyLong_FromLong(j);
            PyObject *cell = (pi && pj) ? PyTuple_New(3) : NULL;
            if (!cell) { Py_XDECREF(pi); Py_XDECREF(pj); Py_DECREF(cells); goto fail; }
            Py_INCREF(v);
            PyTuple_SET_ITEM(cell, 0, pi);
            PyTuple_SET_ITEM(cell, 1, pj);
            PyTuple_SET_ITEM(cell, 2, v);
            PyTuple_SET_ITEM(cells, q++, cell);
        }
        PyObject *cnt;
        if (counts) {
            u128 M[2];
            if (mask_in(PyTuple_GET_ITEM(old, 0), &M[0], n) < 0
                || mask_in(PyTuple_GET_ITEM(old, 1), &M[1], n) < 0) { Py_DECREF(cells); goto fail; }
            PyObject *lens = PySequence_Fast(PyTuple_GET_ITEM(spec, 1), "lens");
            PyObject *cidx = lens ? PySequence_Fast(PyTuple_GET_ITEM(spec, 2), "cidx") : NULL;
            PyObject *gaps = cidx ? PySequence_Fast(PyTuple_GET_ITEM(spec, 3), "gaps") : NULL;
            u128 got = 0;
            int bad = !gaps;
            if (!bad && PySequence_Fast_GET_SIZE(cidx) != PySequence_Fast_GET_SIZE(lens)) {
                PyErr_SetString(PyExc_ValueError, "bad spec");
                bad = 1;
            }
            if (!bad)
                bad = count_core(n, lens, cidx, gaps, PySequence_Fast_GET_SIZE(lens), M, 2, &got) < 0;
            Py_XDECREF(lens); Py_XDECREF(cidx); Py_XDECREF(gaps);
            cnt = bad ? NULL : u128_out(got);
            if (!cnt) { Py_DECREF(cells); goto fail; }
        } else {
            cnt = Py_None;
            Py_INCREF(cnt);
        }
        PyObject *t = PyTuple_New(3);
        if (!t) { Py_DECREF(cells); Py_DECREF(cnt); goto fail; }
        PyObject *l = PyTuple_GET_ITEM(rec, 0);
        Py_INCREF(l);
        PyTuple_SET_ITEM(t, 0, l);
        PyTuple_SET_ITEM(t, 1, cells);
        PyTuple_SET_ITEM(t, 2, cnt);
        PyList_SET_ITEM(out, r, t);
    }
    Py_DECREF(zero);
    return out;
fail:
    Py_DECREF(zero);
    Py_DECREF(out);
    return NULL;
}
#endif

static PyMethodDef methods[] = {
    {"count", py_count, METH_VARARGS, count_doc},
#ifdef __SIZEOF_INT128__
    {"steps_bw", py_steps_bw, METH_VARARGS, steps_bw_doc},
#endif
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_count", "Placement counts and line steps for the deduction trace.",
    -1, methods
};

PyMODINIT_FUNC PyInit__count(void) { return PyModule_Create(&module); }
