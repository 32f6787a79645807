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
    u128 W = M[0];
    u128 nxt[MAX_N + 2], cur[MAX_N + 2];
    size_t used = sizeof(u128) * (size_t)(n + 2);  /* only the line's cells are touched */
    memset(nxt, 0, used);
    nxt[n] = 1;
    for (long p = n - 1; p >= 0; p--) nxt[p] = ((W >> p) & 1) ? nxt[p + 1] : 0;
    for (Py_ssize_t k = m - 1; k >= 0; k--) {
        long L = PyLong_AsLong(PySequence_Fast_GET_ITEM(lens, k));
        long ci = PyLong_AsLong(PySequence_Fast_GET_ITEM(cidx, k));
        if (PyErr_Occurred()) goto done;
        if (ci < 0 || ci >= C || L < 1) { PyErr_SetString(PyExc_ValueError, "bad block"); goto done; }
        int gap = 0;
        if (k < m - 1) {
            int t = PyObject_IsTrue(PySequence_Fast_GET_ITEM(gaps, k));
            if (t < 0) goto done;
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
    result = u128_out(nxt[0]);
done:
    Py_XDECREF(lens); Py_XDECREF(cidx); Py_XDECREF(gaps); Py_XDECREF(ms);
    return result;
#endif
}

static PyMethodDef methods[] = {
    {"count", py_count, METH_VARARGS, count_doc},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_count", "Placement counts of one line (the deduction trace's).",
    -1, methods
};

PyMODINIT_FUNC PyInit__count(void) { return PyModule_Create(&module); }
