/* The singles hot path of `Replayer.rate_all` in C (RATINGS.md §3), optional.

   `ratings/engine/replay.py` stays the source of truth: it owns every player's
   state between calls, snapshots, predictions and the window rules. A `Replay`
   object is a working copy for one `rate_all` call: it loads a player from the
   Replayer's Python `_Player` the first time the player appears in the call,
   rates singles matches with exactly the arithmetic of `Replayer.rate` (same
   operations in the same order, the same libm), and writes the players it
   changed back with `export()`.

   Anything it does not handle itself (a team match, a date before the last
   rated match, a score line that fails validation, a match against oneself, an
   update that would raise in Python: volatility iteration cap, math range or
   domain error, division by zero) makes `run` stop *before* changing anything
   for that match and return its index. The Python side then exports, rates
   that one match in pure Python (which raises the same EngineError, or rates
   it), tells this object to `forget` the players that match changed, and calls
   `run` again from the next match. So every outcome, errors included, is the
   pure-Python one by construction.

   Per player: rating, RD, volatility (as doubles and as the Python objects
   handed out in PlayerChange, so consecutive changes share them as in Python),
   match count, last ordinal, and the lookback window as a ring buffer of
   (ordinal, opponent index), with the count of matches against each opponent
   inside the window in a small open-addressing hash table per player. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>
#include <structmember.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Results must equal Python's bit for bit: no fused multiply-add. */
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* Bumped whenever the Python-facing interface changes; replay.py ignores a module
   built from another version (a stale in-tree build) and stays pure Python. */
#define API_VERSION 2

#define N_CHANGE_FIELDS 16
#define N_MATCH_FIELDS 5
enum { M_PLAYED_ON, M_SIDE_A, M_SIDE_B, M_GAMES, M_ID };

/* run() results of one match */
#define RATED 0
#define STOP 1 /* leave this match to Python */
#define ERROR (-1)

/* -------------------------------------------------------------------------- */
/* Arithmetic, mirroring glicko2.py. Each returns 0, or 1 where Python would    */
/* raise (ZeroDivisionError, OverflowError, ValueError, EngineError).           */

typedef struct {
    double scale;          /* GLICKO2_SCALE */
    double three_over_pi2; /* THREE_OVER_PI_SQUARED */
    double epsilon;        /* VOLATILITY_EPSILON */
    long long max_iterations;
    long long max_bracket_steps;
    double tau;
    double slope;
} Maths;

static inline int
py_exp(double x, double *r)
{
    *r = exp(x);
    return isinf(*r) && isfinite(x); /* math.exp: OverflowError */
}

static inline int
py_log(double x, double *r)
{
    if (x <= 0.0) /* math.log: ValueError (NaN passes through) */
        return 1;
    *r = log(x);
    return 0;
}

static inline int
py_sqrt(double x, double *r)
{
    if (x < 0.0) /* math.sqrt: ValueError */
        return 1;
    *r = sqrt(x);
    return 0;
}

/* `a / b` that fails where Python raises ZeroDivisionError. */
#define DIV(out, a, b)                                                                      \
    do {                                                                                    \
        double den_ = (b);                                                                  \
        if (den_ == 0.0)                                                                    \
            return 1;                                                                       \
        (out) = (a) / den_;                                                                 \
    } while (0)

/* glicko2.new_volatility */
static int
new_volatility(const Maths *m, double delta, double phi, double v, double sigma, double *out)
{
    double a, p2v, rest, inv_tau2, ex, den, f_a, f_b, f_c, big_a, big_b, big_c, r;
    long long k, iterations;

    if (py_log(sigma * sigma, &a))
        return 1;
    p2v = phi * phi + v;
    rest = delta * delta - p2v;
    DIV(inv_tau2, 1.0, m->tau * m->tau);
    ex = sigma * sigma;
    den = p2v + ex;
    DIV(f_a, ex * (rest - ex), 2.0 * den * den);
    big_a = a;
    if (rest > 0.0) {
        if (py_log(rest, &big_b))
            return 1;
        f_b = -(big_b - a) * inv_tau2;
    }
    else {
        k = 0;
        for (;;) {
            k += 1;
            if (k > m->max_bracket_steps)
                return 1;
            big_b = a - (double)k * m->tau;
            if (py_exp(big_b, &ex))
                return 1;
            den = p2v + ex;
            DIV(r, ex * (rest - ex), 2.0 * den * den);
            f_b = r + (double)k * m->tau * inv_tau2;
            if (f_b >= 0.0)
                break;
        }
    }
    iterations = 0;
    while (fabs(big_b - big_a) > m->epsilon) {
        iterations += 1;
        if (iterations > m->max_iterations)
            return 1;
        DIV(r, (big_a - big_b) * f_a, f_b - f_a);
        big_c = big_a + r;
        if (py_exp(big_c, &ex))
            return 1;
        den = p2v + ex;
        DIV(r, ex * (rest - ex), 2.0 * den * den);
        f_c = r - (big_c - a) * inv_tau2;
        if (f_c * f_b <= 0.0) {
            big_a = big_b;
            f_a = f_b;
        }
        else {
            f_a = f_a / 2.0;
        }
        big_b = big_c;
        f_b = f_c;
    }
    return py_exp(big_a / 2.0, out);
}

/* glicko2.update_one: out = (mu', phi', sigma', E) */
static int
update_one(const Maths *m, double mu, double phi, double sigma, double mu_opp, double phi_opp,
           double score, double weight, int gate_open, double out[4])
{
    double root, g_o, z, e, v, improvement, sigma_new, phi_star_sq, phi_star, phi_new, r;

    if (py_sqrt(1.0 + m->three_over_pi2 * phi_opp * phi_opp, &root))
        return 1;
    DIV(g_o, 1.0, root);
    if (py_exp(-g_o * (mu - mu_opp) * m->slope, &z))
        return 1;
    DIV(e, 1.0, 1.0 + z);
    DIV(v, 1.0, weight * g_o * g_o * z * e * e);
    improvement = weight * g_o * (score - e);
    if (new_volatility(m, v * improvement, phi, v, sigma, &sigma_new))
        return 1;
    phi_star_sq = phi * phi + sigma_new * sigma_new;
    if (gate_open) {
        double inv_star, inv_v;
        DIV(inv_star, 1.0, phi_star_sq);
        DIV(inv_v, 1.0, v);
        if (py_sqrt(inv_star + inv_v, &r))
            return 1;
        DIV(phi_new, 1.0, r);
    }
    else {
        if (py_sqrt(phi_star_sq, &phi_star))
            return 1;
        phi_new = phi > phi_star ? phi : phi_star;
    }
    out[0] = mu + phi_new * phi_new * improvement;
    out[1] = phi_new;
    out[2] = sigma_new;
    out[3] = e;
    return 0;
}

/* -------------------------------------------------------------------------- */
/* Players, windows and counts                                                  */

typedef struct {
    int32_t ord;  /* date ordinal of the match */
    int32_t opp;  /* opponent's index */
    int32_t cont; /* 1: same Python window entry as the one before (a team match) */
} Entry;

typedef struct {
    int32_t opp; /* -1: empty */
    int32_t count;
} Count;

typedef struct {
    PyObject *obj; /* the Replayer's _Player; NULL: not loaded (only known as a name) */
    PyObject *rating_obj, *rd_obj, *vol_obj;
    double rating, rd, vol;
    long long matches;
    long long last; /* ordinal of the last match, 0: none */
    Entry *win;     /* the window, oldest first: a ring buffer, capacity a power of two */
    int32_t head, len, cap;
    /* opponent -> matches against them inside the window: open addressing, capacity a
       power of two, at most half full; `distinct` keys */
    Count *counts;
    int32_t counts_cap, distinct;
    int dirty;
} Player;

typedef struct {
    PyObject_HEAD
    Maths maths;
    long long lookback, period;
    double alpha, threshold, center, low, high, rd_max, phi_max;
    int floor; /* §3 step 9: the wrong-way floor */
    /* the Replayer's collaborators */
    PyObject *player_fn;  /* name -> _Player (Replayer._player) */
    PyObject *outcomes;   /* dict: games -> (s_a, m, a_won, s_b, Outcome) (Replayer._outcomes) */
    PyObject *outcome_fn; /* games -> the same, validating and caching (Replayer._outcome) */
    PyObject *change_type;
    Py_ssize_t change_offsets[N_CHANGE_FIELDS];
    int fast_change; /* fill PlayerChange slots directly */
    PyObject *match_type;
    PyObject *match_names[N_MATCH_FIELDS];
    Py_ssize_t match_offsets[N_MATCH_FIELDS];
    int fast_match; /* read Match slots directly */
    PyObject *deque_type;
    PyObject *one; /* 1.0 */
    /* state */
    long long last_ordinal;
    PyObject *last_id;
    PyObject *index; /* dict: name -> index */
    PyObject **names;
    Player *players;
    Py_ssize_t n_players, cap_players;
    int32_t *dirty;
    Py_ssize_t n_dirty, cap_dirty;
    int busy;
    /* the players' indices of the next few matches, looked up ahead (prefetch_ahead) */
    struct {
        PyObject *match; /* strong reference while the hint is pending */
        PyObject *name_a, *name_b;
        Py_ssize_t ia, ib;
    } hints[8];
} Replay;

static PyObject *str_rating, *str_rd, *str_volatility, *str_matches, *str_last, *str_recent,
    *str_counts, *str_slots;

static inline uint32_t
count_home(int32_t opp, int32_t mask)
{
    uint32_t h = (uint32_t)opp * 0x9E3779B1u;
    return (h ^ (h >> 15)) & (uint32_t)mask;
}

static inline int32_t
count_find(const Player *p, int32_t opp)
{
    int32_t mask = p->counts_cap - 1, i = (int32_t)count_home(opp, mask);
    while (p->counts[i].opp != -1 && p->counts[i].opp != opp)
        i = (i + 1) & mask;
    return i;
}

/* Room for `extra` more opponents in the counts. */
static int
counts_reserve(Player *p, int32_t extra)
{
    int32_t cap, i, old_cap = p->counts_cap;
    Count *old = p->counts, *fresh;
    if (old_cap && (p->distinct + extra) * 2 <= old_cap)
        return 0;
    cap = old_cap ? old_cap : 16;
    while ((p->distinct + extra) * 2 > cap) {
        if (cap > (1 << 28)) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    if ((fresh = PyMem_Malloc((size_t)cap * sizeof(Count))) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (i = 0; i < cap; i++)
        fresh[i].opp = -1;
    p->counts = fresh;
    p->counts_cap = cap;
    for (i = 0; i < old_cap; i++)
        if (old[i].opp != -1)
            p->counts[count_find(p, old[i].opp)] = old[i];
    PyMem_Free(old);
    return 0;
}

static inline int32_t
count_get(const Player *p, Py_ssize_t opp)
{
    int32_t i;
    if (p->counts_cap == 0)
        return 0;
    i = count_find(p, (int32_t)opp);
    return p->counts[i].opp == -1 ? 0 : p->counts[i].count;
}

/* The caller has reserved room (counts_reserve). */
static inline void
count_inc(Player *p, int32_t opp)
{
    int32_t i = count_find(p, opp);
    if (p->counts[i].opp == -1) {
        p->counts[i].opp = opp;
        p->counts[i].count = 1;
        p->distinct++;
    }
    else {
        p->counts[i].count++;
    }
}

static inline void
count_dec(Player *p, int32_t opp)
{
    int32_t mask = p->counts_cap - 1, i = count_find(p, opp), j;
    uint32_t home;
    if (p->counts[i].opp == -1) /* cannot happen: the window holds the entry */
        return;
    if (--p->counts[i].count > 0)
        return;
    p->distinct--;
    /* Backward-shift deletion keeps linear probing free of tombstones. */
    j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (p->counts[j].opp == -1)
            break;
        home = count_home(p->counts[j].opp, mask);
        if (i <= j ? ((uint32_t)i < home && home <= (uint32_t)j)
                   : ((uint32_t)i < home || home <= (uint32_t)j))
            continue;
        p->counts[i] = p->counts[j];
        i = j;
    }
    p->counts[i].opp = -1;
}

/* Room for `extra` more window entries and as many new opponents. */
static int
window_reserve(Player *p, int32_t extra)
{
    int32_t cap, i;
    Entry *fresh;
    if (counts_reserve(p, extra) < 0)
        return -1;
    if (p->len + extra <= p->cap)
        return 0;
    cap = p->cap ? p->cap : 16;
    while (p->len + extra > cap) {
        if (cap > (1 << 28)) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    fresh = PyMem_Malloc((size_t)cap * sizeof(Entry));
    if (fresh == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (i = 0; i < p->len; i++)
        fresh[i] = p->win[(p->head + i) & (p->cap - 1)];
    PyMem_Free(p->win);
    p->win = fresh;
    p->head = 0;
    p->cap = cap;
    return 0;
}

/* The caller has reserved room (window_reserve). */
static inline void
window_push(Player *p, int32_t ord, Py_ssize_t opp, int cont)
{
    Entry *e = &p->win[(p->head + p->len) & (p->cap - 1)];
    e->ord = ord;
    e->opp = (int32_t)opp;
    e->cont = cont;
    p->len++;
    count_inc(p, (int32_t)opp);
}

/* Replayer._prune: drop entries older than lookback days before `ord`. */
static inline void
window_prune(Player *p, long long ord, long long lookback)
{
    while (p->len && ord - p->win[p->head].ord > lookback) {
        count_dec(p, p->win[p->head].opp);
        p->head = (p->head + 1) & (p->cap - 1);
        p->len--;
    }
}

/* Replayer._unprune: put back what window_prune dropped since (head, len). Room is
   there: the counts table never shrinks. */
static void
window_unprune(Player *p, int32_t head, int32_t len)
{
    int32_t i;
    for (i = 0; i < len - p->len; i++)
        count_inc(p, p->win[(head + i) & (p->cap - 1)].opp);
    p->head = head;
    p->len = len;
}

static void
player_clear(Player *p)
{
    int32_t i;
    for (i = 0; i < p->counts_cap; i++)
        p->counts[i].opp = -1;
    p->distinct = 0;
    p->head = p->len = 0;
    Py_CLEAR(p->obj);
    Py_CLEAR(p->rating_obj);
    Py_CLEAR(p->rd_obj);
    Py_CLEAR(p->vol_obj);
    p->dirty = 0;
}

/* The index of a player's name, assigning the next one to a new name; -1 on error. */
static Py_ssize_t
intern_name(Replay *self, PyObject *name)
{
    PyObject *found = PyDict_GetItemWithError(self->index, name), *number;
    Py_ssize_t idx;
    if (found != NULL)
        return PyLong_AsSsize_t(found);
    if (PyErr_Occurred())
        return -1;
    if (self->n_players >= INT32_MAX - 1) {
        PyErr_SetString(PyExc_OverflowError, "too many players for the native replay");
        return -1;
    }
    if (self->n_players == self->cap_players) {
        Py_ssize_t cap = self->cap_players ? self->cap_players * 2 : 1024;
        Player *players = PyMem_Realloc(self->players, (size_t)cap * sizeof(Player));
        PyObject **names;
        if (players == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        self->players = players;
        names = PyMem_Realloc(self->names, (size_t)cap * sizeof(PyObject *));
        if (names == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        self->names = names;
        self->cap_players = cap;
    }
    idx = self->n_players;
    number = PyLong_FromSsize_t(idx);
    if (number == NULL)
        return -1;
    if (PyDict_SetItem(self->index, name, number) < 0) {
        Py_DECREF(number);
        return -1;
    }
    Py_DECREF(number);
    memset(&self->players[idx], 0, sizeof(Player));
    Py_INCREF(name);
    self->names[idx] = name;
    self->n_players++;
    return idx;
}

/* Give up on this match (STOP) after an ordinary exception; anything else
   (KeyboardInterrupt, SystemExit) propagates. */
static int
stop_or_fail(void)
{
    if (PyErr_ExceptionMatches(PyExc_Exception)) {
        PyErr_Clear();
        return STOP;
    }
    return ERROR;
}

static int
as_double(PyObject *o, double *out)
{
    *out = PyFloat_AsDouble(o);
    return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

/* Load a player's state and window from the Replayer (creating the _Player as
   Replayer._player does). RATED when loaded, STOP or ERROR. */
static int
load_player(Replay *self, Py_ssize_t idx)
{
    PyObject *obj, *rating = NULL, *rd = NULL, *vol = NULL, *value = NULL, *it = NULL,
                   *entry = NULL, *opps = NULL;
    double d_rating, d_rd, d_vol;
    long long matches, last = 0, slots, n_counts;
    Player *p;

    obj = PyObject_CallOneArg(self->player_fn, self->names[idx]);
    if (obj == NULL)
        return stop_or_fail();
    if ((rating = PyObject_GetAttr(obj, str_rating)) == NULL || as_double(rating, &d_rating) ||
        (rd = PyObject_GetAttr(obj, str_rd)) == NULL || as_double(rd, &d_rd) ||
        (vol = PyObject_GetAttr(obj, str_volatility)) == NULL || as_double(vol, &d_vol))
        goto fail;
    if ((value = PyObject_GetAttr(obj, str_matches)) == NULL)
        goto fail;
    matches = PyLong_AsLongLong(value);
    Py_CLEAR(value);
    if (matches == -1 && PyErr_Occurred())
        goto fail;
    if ((value = PyObject_GetAttr(obj, str_last)) == NULL)
        goto fail;
    if (value != Py_None) {
        last = PyLong_AsLongLong(value);
        if (last == -1 && PyErr_Occurred())
            goto fail;
    }
    Py_CLEAR(value);

    p = &self->players[idx];
    p->obj = obj;
    p->rating_obj = rating;
    p->rd_obj = rd;
    p->vol_obj = vol;
    p->rating = d_rating;
    p->rd = d_rd;
    p->vol = d_vol;
    p->matches = matches;
    p->last = last;
    p->dirty = 0;
    obj = rating = rd = vol = NULL; /* owned by the player now */

    /* The window: (ordinal, opponents) entries, oldest first. */
    if ((value = PyObject_GetAttr(self->players[idx].obj, str_recent)) == NULL)
        goto fail_loaded;
    it = PyObject_GetIter(value);
    Py_CLEAR(value);
    if (it == NULL)
        goto fail_loaded;
    while ((entry = PyIter_Next(it)) != NULL) {
        long long ord;
        Py_ssize_t j, n;
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2) {
            PyErr_SetString(PyExc_TypeError, "window entries are (ordinal, opponents)");
            goto fail_loaded;
        }
        ord = PyLong_AsLongLong(PyTuple_GET_ITEM(entry, 0));
        if (ord == -1 && PyErr_Occurred())
            goto fail_loaded;
        if (ord < INT32_MIN || ord > INT32_MAX) {
            PyErr_SetString(PyExc_OverflowError, "window ordinal out of range");
            goto fail_loaded;
        }
        opps = PySequence_Fast(PyTuple_GET_ITEM(entry, 1), "window opponents must be a sequence");
        if (opps == NULL)
            goto fail_loaded;
        n = PySequence_Fast_GET_SIZE(opps);
        for (j = 0; j < n; j++) {
            Py_ssize_t o = intern_name(self, PySequence_Fast_GET_ITEM(opps, j));
            if (o < 0 || window_reserve(&self->players[idx], 1) < 0)
                goto fail_loaded;
            window_push(&self->players[idx], (int32_t)ord, o, j > 0);
        }
        Py_CLEAR(opps);
        Py_CLEAR(entry);
    }
    Py_CLEAR(it);
    if (PyErr_Occurred())
        goto fail_loaded;

    /* The window and the Python counts must agree (they always do: both are kept together). */
    p = &self->players[idx];
    if ((value = PyObject_GetAttr(p->obj, str_slots)) == NULL)
        goto fail_loaded;
    slots = PyLong_AsLongLong(value);
    Py_CLEAR(value);
    if (slots == -1 && PyErr_Occurred())
        goto fail_loaded;
    if ((value = PyObject_GetAttr(p->obj, str_counts)) == NULL)
        goto fail_loaded;
    n_counts = PyObject_Length(value);
    Py_CLEAR(value);
    if (n_counts < 0)
        goto fail_loaded;
    if (slots != p->len || n_counts != p->distinct) {
        PyErr_SetString(PyExc_RuntimeError,
                        "native replay: a player's window does not match its counts");
        player_clear(&self->players[idx]);
        return ERROR;
    }
    return RATED;

fail:
    Py_XDECREF(obj);
    Py_XDECREF(rating);
    Py_XDECREF(rd);
    Py_XDECREF(vol);
    Py_XDECREF(value);
    return stop_or_fail();

fail_loaded:
    Py_XDECREF(value);
    Py_XDECREF(it);
    Py_XDECREF(entry);
    Py_XDECREF(opps);
    player_clear(&self->players[idx]);
    return stop_or_fail();
}

static int
mark_dirty(Replay *self, Py_ssize_t idx)
{
    if (self->players[idx].dirty)
        return 0;
    if (self->n_dirty == self->cap_dirty) {
        Py_ssize_t cap = self->cap_dirty ? self->cap_dirty * 2 : 1024;
        int32_t *dirty = PyMem_Realloc(self->dirty, (size_t)cap * sizeof(int32_t));
        if (dirty == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        self->dirty = dirty;
        self->cap_dirty = cap;
    }
    self->dirty[self->n_dirty++] = (int32_t)idx;
    self->players[idx].dirty = 1;
    return 0;
}

/* -------------------------------------------------------------------------- */
/* Reading matches, building PlayerChange                                       */

static const int days_before_month[13] = {0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};

/* date.toordinal() */
static long long
date_ordinal(PyObject *d)
{
    long long y = PyDateTime_GET_YEAR(d), m = PyDateTime_GET_MONTH(d),
              day = PyDateTime_GET_DAY(d), y1 = y - 1;
    int leap = (y % 4 == 0) && (y % 100 != 0 || y % 400 == 0);
    return y1 * 365 + y1 / 4 - y1 / 100 + y1 / 400 + days_before_month[m] + (m > 2 && leap) + day;
}

/* A new reference to field `i` of a match, or NULL with an exception. */
static PyObject *
match_field(Replay *self, PyObject *match, int i)
{
    if (self->fast_match && Py_TYPE(match) == (PyTypeObject *)self->match_type) {
        PyObject *v = *(PyObject **)((char *)match + self->match_offsets[i]);
        if (v != NULL) {
            Py_INCREF(v);
            return v;
        }
    }
    return PyObject_GetAttr(match, self->match_names[i]);
}

/* Objects that cannot refer to anything: a PlayerChange made of them only can
   never be part of a reference cycle, so the garbage collector may skip it. */
static inline int
atomic(PyObject *o)
{
    return PyFloat_CheckExact(o) || PyUnicode_CheckExact(o) || PyLong_CheckExact(o) ||
           PyBool_Check(o);
}

static PyObject *
make_change(Replay *self, PyObject **values)
{
    if (self->fast_change) {
        PyTypeObject *tp = (PyTypeObject *)self->change_type;
        PyObject *obj = tp->tp_alloc(tp, 0);
        int i, untrack = 1;
        if (obj == NULL)
            return NULL;
        for (i = 0; i < N_CHANGE_FIELDS; i++) {
            Py_INCREF(values[i]);
            *(PyObject **)((char *)obj + self->change_offsets[i]) = values[i];
            untrack &= atomic(values[i]);
        }
        if (untrack && PyObject_IS_GC(obj))
            PyObject_GC_UnTrack(obj);
        return obj;
    }
    return PyObject_Vectorcall(self->change_type, values, N_CHANGE_FIELDS, NULL);
}

/* -------------------------------------------------------------------------- */
/* One match: Replayer.rate's singles path                                      */

/* predict.win_probability for two single players (points in, P out), with the RDs
   already grown for inactivity to the match date, as predict.inflated_rd does. */
static int
win_probability(const Maths *m, double rating_a, double rd_a, double rating_b, double rd_b,
                double *out)
{
    double mu_a = rating_a / m->scale, mu_b = rating_b / m->scale, phi_a, phi_b, t, spread, z;
    /* rms() of one RD: sqrt((0 + rd * rd) / 1) */
    if (py_sqrt(rd_a * rd_a, &phi_a) || py_sqrt(rd_b * rd_b, &phi_b))
        return 1;
    phi_a = phi_a / m->scale;
    phi_b = phi_b / m->scale;
    if (py_sqrt(phi_a * phi_a + phi_b * phi_b, &t) ||
        py_sqrt(1.0 + m->three_over_pi2 * t * t, &spread))
        return 1;
    DIV(spread, 1.0, spread);
    if (py_exp(-spread * (mu_a - mu_b) * m->slope, &z))
        return 1;
    DIV(*out, 1.0, 1.0 + z);
    return 0;
}

static int
rate_one(Replay *self, PyObject *match, PyObject *out, PyObject *probs, Py_ssize_t hint_a,
         Py_ssize_t hint_b, PyObject *hint_name_a, PyObject *hint_name_b)
{
    PyObject *f[N_MATCH_FIELDS] = {NULL};
    PyObject *s_obj = NULL, *name_a, *name_b, *made[12] = {NULL}, *ca = NULL, *cb = NULL,
             *pair = NULL, *prob = NULL;
    Py_ssize_t ia, ib;
    long long ord;
    PyObject *m_obj, *won_obj, *s_b_obj;
    double s_a, mult, mu_a, mu_b, phi_a, phi_b, rd_a, rd_b, w_a, w_b, ratio_a, ratio_b, res_a[4],
        res_b[4], new_a, new_b, rd_a2, rd_b2;
    int64_t k_a, k_b;
    int gate_a, gate_b, a_won, floor_a = 0, floor_b = 0, inflated_a = 0, inflated_b = 0,
        rc = STOP, i;
    int32_t head_a, len_a, head_b, len_b;
    Player *pa, *pb;
    const Maths *m = &self->maths;

    for (i = 0; i < N_MATCH_FIELDS; i++) {
        if ((f[i] = match_field(self, match, i)) == NULL) {
            rc = stop_or_fail();
            goto done;
        }
    }
    /* §3 order: by date, then id within a day (Replayer._check_order raises otherwise). */
    if (!(PyDate_CheckExact(f[M_PLAYED_ON]) || PyDateTime_CheckExact(f[M_PLAYED_ON])))
        goto done;
    ord = date_ordinal(f[M_PLAYED_ON]);
    if (ord <= self->last_ordinal) {
        if (ord < self->last_ordinal)
            goto done;
        if (f[M_ID] != Py_None && self->last_id != Py_None) {
            int later = PyObject_RichCompareBool(f[M_ID], self->last_id, Py_LE);
            if (later != 0) {
                if (later < 0)
                    rc = stop_or_fail();
                goto done;
            }
        }
    }
    /* The outcome, from Replayer._outcomes or Replayer._outcome (which validates). */
    s_obj = PyDict_GetItemWithError(self->outcomes, f[M_GAMES]);
    if (s_obj != NULL) {
        Py_INCREF(s_obj);
    }
    else {
        if (PyErr_Occurred()) { /* unhashable games (lists): Python converts them */
            rc = stop_or_fail();
            goto done;
        }
        if ((s_obj = PyObject_CallOneArg(self->outcome_fn, f[M_GAMES])) == NULL) {
            rc = stop_or_fail();
            goto done;
        }
    }
    /* (s_a, m, a_won, s_b, Outcome) */
    if (!PyTuple_CheckExact(s_obj) || PyTuple_GET_SIZE(s_obj) < 4)
        goto done;
    m_obj = PyTuple_GET_ITEM(s_obj, 1);
    won_obj = PyTuple_GET_ITEM(s_obj, 2);
    s_b_obj = PyTuple_GET_ITEM(s_obj, 3);
    if (!PyFloat_CheckExact(PyTuple_GET_ITEM(s_obj, 0)) || !PyFloat_CheckExact(m_obj) ||
        !PyBool_Check(won_obj) || !PyFloat_CheckExact(s_b_obj))
        goto done;
    s_a = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(s_obj, 0));
    mult = PyFloat_AS_DOUBLE(m_obj);
    a_won = won_obj == Py_True;
    /* Singles only; anything else (teams, lists for sides) is Python's. */
    if (!PyTuple_CheckExact(f[M_SIDE_A]) || PyTuple_GET_SIZE(f[M_SIDE_A]) != 1 ||
        !PyTuple_CheckExact(f[M_SIDE_B]) || PyTuple_GET_SIZE(f[M_SIDE_B]) != 1)
        goto done;
    name_a = PyTuple_GET_ITEM(f[M_SIDE_A], 0);
    name_b = PyTuple_GET_ITEM(f[M_SIDE_B], 0);
    /* The index looked up ahead for this very name object, else the lookup now. */
    ia = (hint_a >= 0 && hint_name_a == name_a) ? hint_a : intern_name(self, name_a);
    ib = (hint_b >= 0 && hint_name_b == name_b) ? hint_b : (ia < 0 ? -1 : intern_name(self, name_b));
    if (ia < 0 || ib < 0) {
        rc = stop_or_fail();
        goto done;
    }
    if (ia == ib) /* playing oneself: Python raises */
        goto done;
    if (self->players[ia].obj == NULL && (rc = load_player(self, ia)) != RATED)
        goto done;
    if (self->players[ib].obj == NULL && (rc = load_player(self, ib)) != RATED)
        goto done;
    rc = STOP;
    /* Room for this match's window entries and counts, so committing cannot fail. */
    if (window_reserve(&self->players[ia], 1) < 0 || window_reserve(&self->players[ib], 1) < 0) {
        rc = ERROR;
        goto done;
    }
    pa = &self->players[ia];
    pb = &self->players[ib];

    /* Steps 4 and 7: the window, repetition weight and diversity gate. */
    head_a = pa->head;
    len_a = pa->len;
    head_b = pb->head;
    len_b = pb->len;
    window_prune(pa, ord, self->lookback);
    window_prune(pb, ord, self->lookback);
    k_a = count_get(pa, ib);
    k_b = count_get(pb, ia);
    w_a = 1.0 / (1.0 + self->alpha * (double)k_a);
    w_b = 1.0 / (1.0 + self->alpha * (double)k_b);
    ratio_a = (double)(pa->distinct + (k_a ? 0 : 1)) / (double)(pa->len + 1);
    ratio_b = (double)(pb->distinct + (k_b ? 0 : 1)) / (double)(pb->len + 1);
    gate_a = ratio_a >= self->threshold;
    gate_b = ratio_b >= self->threshold;
    /* Step 1: inactivity (Replayer._inflated_rd, glicko2.inflate). */
    rd_a = pa->rd;
    if (pa->last != 0 && ord - pa->last >= self->period) {
        long long periods = (ord - pa->last) / self->period;
        if (periods > 0) {
            double phi = pa->rd / m->scale, grown;
            if (py_sqrt(phi * phi + (double)periods * pa->vol * pa->vol, &grown))
                goto unprune;
            rd_a = m->scale * (grown < self->phi_max ? grown : self->phi_max);
            inflated_a = 1;
        }
    }
    rd_b = pb->rd;
    if (pb->last != 0 && ord - pb->last >= self->period) {
        long long periods = (ord - pb->last) / self->period;
        if (periods > 0) {
            double phi = pb->rd / m->scale, grown;
            if (py_sqrt(phi * phi + (double)periods * pb->vol * pb->vol, &grown))
                goto unprune;
            rd_b = m->scale * (grown < self->phi_max ? grown : self->phi_max);
            inflated_b = 1;
        }
    }
    if (probs != NULL) { /* §6 before the match, as Replayer.predict(side_a, side_b, date) */
        double p;
        if (win_probability(m, pa->rating, rd_a, pb->rating, rd_b, &p))
            goto unprune;
        if ((prob = PyFloat_FromDouble(p)) == NULL) {
            rc = ERROR;
            goto unprune;
        }
    }
    mu_a = (pa->rating - self->center) / m->scale;
    mu_b = (pb->rating - self->center) / m->scale;
    phi_a = rd_a / m->scale;
    phi_b = rd_b / m->scale;
    /* The information multiplier m weighs the match (§3 step 2): it multiplies the weight. */
    if (update_one(m, mu_a, phi_a, pa->vol, mu_b, phi_b, s_a, w_a * mult, gate_a, res_a) ||
        update_one(m, mu_b, phi_b, pb->vol, mu_a, phi_a, 1.0 - s_a, w_b * mult, gate_b, res_b))
        goto unprune;
    /* Step 9: bounds, then the wrong-way floor (teams._bounded). */
    /* As teams._moved: the old rating plus the change, R + 173.7178 (mu' - mu). */
    new_a = pa->rating + m->scale * (res_a[0] - (pa->rating - self->center) / m->scale);
    new_a = new_a < self->low ? self->low : new_a > self->high ? self->high : new_a;
    new_b = pb->rating + m->scale * (res_b[0] - (pb->rating - self->center) / m->scale);
    new_b = new_b < self->low ? self->low : new_b > self->high ? self->high : new_b;
    if (self->floor && (a_won ? new_a < pa->rating : new_a > pa->rating)) {
        new_a = pa->rating;
        floor_a = 1;
    }
    if (self->floor && (a_won ? new_b > pb->rating : new_b < pb->rating)) {
        new_b = pb->rating;
        floor_b = 1;
    }
    rd_a2 = m->scale * res_a[1];
    if (rd_a2 > self->rd_max)
        rd_a2 = self->rd_max;
    rd_b2 = m->scale * res_b[1];
    if (rd_b2 > self->rd_max)
        rd_b2 = self->rd_max;

    /* The two PlayerChange, built before anything is committed. */
    rc = ERROR;
    if ((made[0] = PyFloat_FromDouble(new_a)) == NULL ||
        (made[1] = PyFloat_FromDouble(rd_a2)) == NULL ||
        (made[2] = PyFloat_FromDouble(res_a[2])) == NULL ||
        (made[3] = PyFloat_FromDouble(res_a[3])) == NULL ||
        (made[4] = PyFloat_FromDouble(w_a)) == NULL ||
        (made[5] = PyFloat_FromDouble(ratio_a)) == NULL ||
        (made[6] = PyFloat_FromDouble(new_b)) == NULL ||
        (made[7] = PyFloat_FromDouble(rd_b2)) == NULL ||
        (made[8] = PyFloat_FromDouble(res_b[2])) == NULL ||
        (made[9] = PyFloat_FromDouble(res_b[3])) == NULL ||
        (made[10] = PyFloat_FromDouble(w_b)) == NULL ||
        (made[11] = PyFloat_FromDouble(ratio_b)) == NULL)
        goto unprune;
    {
        PyObject *rd_before_a = inflated_a ? PyFloat_FromDouble(rd_a) : Py_NewRef(pa->rd_obj);
        PyObject *rd_before_b = inflated_b ? PyFloat_FromDouble(rd_b) : Py_NewRef(pb->rd_obj);
        if (rd_before_a != NULL && rd_before_b != NULL) {
            PyObject *va[N_CHANGE_FIELDS] = {
                name_a,   pa->rating_obj, rd_before_a,         pa->vol_obj, made[0],
                made[1],  made[2],        made[3],             PyTuple_GET_ITEM(s_obj, 0),
                made[4],  made[5],        gate_a ? Py_True : Py_False, self->one,
                a_won ? Py_True : Py_False, m_obj, floor_a ? Py_True : Py_False};
            PyObject *vb[N_CHANGE_FIELDS] = {
                name_b,   pb->rating_obj, rd_before_b,         pb->vol_obj, made[6],
                made[7],  made[8],        made[9],             s_b_obj,
                made[10], made[11],       gate_b ? Py_True : Py_False, self->one,
                a_won ? Py_False : Py_True, m_obj, floor_b ? Py_True : Py_False};
            if ((ca = make_change(self, va)) != NULL)
                cb = make_change(self, vb);
        }
        Py_XDECREF(rd_before_a);
        Py_XDECREF(rd_before_b);
    }
    if (cb == NULL || mark_dirty(self, ia) < 0 || mark_dirty(self, ib) < 0)
        goto unprune;
    if ((pair = PyTuple_New(2)) == NULL)
        goto unprune;
    /* CPython untracks a tuple only when no item is a GC type; these items are, but
       untracked ones (make_change): without this every pair would stay tracked and
       make full collections walk the whole result. */
    if (!PyObject_GC_IsTracked(ca) && !PyObject_GC_IsTracked(cb))
        PyObject_GC_UnTrack(pair);
    PyTuple_SET_ITEM(pair, 0, ca);
    PyTuple_SET_ITEM(pair, 1, cb);
    ca = cb = NULL;
    if ((prob != NULL && PyList_Append(probs, prob) < 0) || PyList_Append(out, pair) < 0)
        goto unprune;

    /* Commit. */
    pa = &self->players[ia];
    pb = &self->players[ib];
    Py_SETREF(pa->rating_obj, made[0]);
    Py_SETREF(pa->rd_obj, made[1]);
    Py_SETREF(pa->vol_obj, made[2]);
    Py_SETREF(pb->rating_obj, made[6]);
    Py_SETREF(pb->rd_obj, made[7]);
    Py_SETREF(pb->vol_obj, made[8]);
    made[0] = made[1] = made[2] = made[6] = made[7] = made[8] = NULL;
    pa->rating = new_a;
    pa->rd = rd_a2;
    pa->vol = res_a[2];
    pb->rating = new_b;
    pb->rd = rd_b2;
    pb->vol = res_b[2];
    pa->matches++;
    pb->matches++;
    pa->last = pb->last = ord;
    window_push(pa, (int32_t)ord, ib, 0);
    window_push(pb, (int32_t)ord, ia, 0);
    self->last_ordinal = ord;
    Py_SETREF(self->last_id, Py_NewRef(f[M_ID]));
    rc = RATED;
    goto done;

unprune:
    window_unprune(&self->players[ia], head_a, len_a);
    window_unprune(&self->players[ib], head_b, len_b);
done:
    for (i = 0; i < N_MATCH_FIELDS; i++)
        Py_XDECREF(f[i]);
    for (i = 0; i < 12; i++)
        Py_XDECREF(made[i]);
    Py_XDECREF(s_obj);
    Py_XDECREF(ca);
    Py_XDECREF(cb);
    Py_XDECREF(pair);
    Py_XDECREF(prob);
    return rc;
}

/* -------------------------------------------------------------------------- */
/* The Replay type                                                              */

static int
member_offsets(PyObject *type, PyObject *names, Py_ssize_t n, Py_ssize_t *offsets)
{
    Py_ssize_t i;
    if (!PyType_Check(type) || !PyTuple_Check(names) || PyTuple_GET_SIZE(names) != n)
        return 0;
    for (i = 0; i < n; i++) {
        PyObject *descr = PyObject_GetAttr(type, PyTuple_GET_ITEM(names, i));
        PyMemberDef *member;
        int ok;
        if (descr == NULL) {
            PyErr_Clear();
            return 0;
        }
        ok = Py_IS_TYPE(descr, &PyMemberDescr_Type) &&
             ((PyDescrObject *)descr)->d_type == (PyTypeObject *)type;
        if (ok) {
            member = ((PyMemberDescrObject *)descr)->d_member;
            ok = member->type == T_OBJECT_EX && !(member->flags & READONLY);
            offsets[i] = member->offset;
        }
        Py_DECREF(descr);
        if (!ok)
            return 0;
    }
    return 1;
}

static int
Replay_init(Replay *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"constants", "player", "outcomes", "outcome", "change", "change_fields",
                             "fast_change", "match", "match_fields", "deque", "last", NULL};
    PyObject *constants, *player, *outcomes, *outcome, *change, *change_fields, *match,
        *match_fields, *deque, *last_id;
    int fast_change, i;
    long long last_ordinal;
    Maths *m = &self->maths;

    if (self->index != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Replay objects cannot be re-initialised");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(
            args, kwargs, "O!OO!OOOpOO!O(LO)", kwlist, &PyTuple_Type, &constants, &player,
            &PyDict_Type, &outcomes, &outcome, &change, &change_fields, &fast_change, &match,
            &PyTuple_Type, &match_fields, &deque, &last_ordinal, &last_id))
        return -1;
    if (!PyArg_ParseTuple(constants, "LddLdddddddpdddLL;constants", &self->lookback,
                          &self->alpha, &self->threshold, &self->period, &self->center,
                          &self->low, &self->high, &self->rd_max, &m->tau, &m->slope,
                          &self->phi_max, &self->floor, &m->scale, &m->three_over_pi2, &m->epsilon,
                          &m->max_iterations, &m->max_bracket_steps))
        return -1;
    if (self->period < 1) {
        PyErr_SetString(PyExc_ValueError, "rating_period_days must be 1 or more");
        return -1;
    }
    if (PyTuple_GET_SIZE(match_fields) != N_MATCH_FIELDS) {
        PyErr_SetString(PyExc_ValueError, "match_fields: played_on, side_a, side_b, games, id");
        return -1;
    }
    for (i = 0; i < N_MATCH_FIELDS; i++) {
        PyObject *name = PyTuple_GET_ITEM(match_fields, i);
        if (!PyUnicode_Check(name)) {
            PyErr_SetString(PyExc_TypeError, "match_fields must be names");
            return -1;
        }
        self->match_names[i] = Py_NewRef(name);
    }
    self->fast_match = member_offsets(match, match_fields, N_MATCH_FIELDS, self->match_offsets);
    self->fast_change = fast_change &&
                        member_offsets(change, change_fields, N_CHANGE_FIELDS, self->change_offsets);
    if (self->fast_change && ((PyTypeObject *)change)->tp_itemsize != 0)
        self->fast_change = 0;
    self->player_fn = Py_NewRef(player);
    self->outcomes = Py_NewRef(outcomes);
    self->outcome_fn = Py_NewRef(outcome);
    self->change_type = Py_NewRef(change);
    self->match_type = Py_NewRef(match);
    self->deque_type = Py_NewRef(deque);
    self->last_ordinal = last_ordinal;
    self->last_id = Py_NewRef(last_id);
    if ((self->one = PyFloat_FromDouble(1.0)) == NULL)
        return -1;
    if ((self->index = PyDict_New()) == NULL)
        return -1;
    return 0;
}

static int
Replay_traverse(Replay *self, visitproc visit, void *arg)
{
    Py_ssize_t i;
    Py_VISIT(self->player_fn);
    Py_VISIT(self->outcomes);
    Py_VISIT(self->outcome_fn);
    Py_VISIT(self->change_type);
    Py_VISIT(self->match_type);
    Py_VISIT(self->deque_type);
    Py_VISIT(self->last_id);
    Py_VISIT(self->index);
    for (i = 0; i < 8; i++)
        Py_VISIT(self->hints[i].match);
    for (i = 0; i < self->n_players; i++) {
        Py_VISIT(self->names[i]);
        Py_VISIT(self->players[i].obj);
        Py_VISIT(self->players[i].rating_obj);
        Py_VISIT(self->players[i].rd_obj);
        Py_VISIT(self->players[i].vol_obj);
    }
    return 0;
}

static int
Replay_clear(Replay *self)
{
    Py_ssize_t i;
    int j;
    Py_CLEAR(self->player_fn);
    Py_CLEAR(self->outcomes);
    Py_CLEAR(self->outcome_fn);
    Py_CLEAR(self->change_type);
    Py_CLEAR(self->match_type);
    Py_CLEAR(self->deque_type);
    Py_CLEAR(self->last_id);
    Py_CLEAR(self->index);
    Py_CLEAR(self->one);
    for (j = 0; j < 8; j++)
        Py_CLEAR(self->hints[j].match);
    for (j = 0; j < N_MATCH_FIELDS; j++)
        Py_CLEAR(self->match_names[j]);
    for (i = 0; i < self->n_players; i++) {
        Player *p = &self->players[i];
        Py_CLEAR(self->names[i]);
        Py_CLEAR(p->obj);
        Py_CLEAR(p->rating_obj);
        Py_CLEAR(p->rd_obj);
        Py_CLEAR(p->vol_obj);
        PyMem_Free(p->win);
        PyMem_Free(p->counts);
        p->win = NULL;
        p->counts = NULL;
    }
    self->n_players = 0;
    PyMem_Free(self->players);
    PyMem_Free(self->names);
    PyMem_Free(self->dirty);
    self->players = NULL;
    self->names = NULL;
    self->dirty = NULL;
    self->cap_players = self->n_dirty = self->cap_dirty = 0;
    return 0;
}

static void
Replay_dealloc(Replay *self)
{
    PyObject_GC_UnTrack(self);
    Replay_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
check_ready(Replay *self)
{
    if (self->index == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Replay is not initialised");
        return -1;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Replay is already running");
        return -1;
    }
    return 0;
}

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch((const void *)(p))
#else
#define PREFETCH(p) ((void)(p))
#endif

/* A replay is bound by memory latency: every match is a handful of Python objects
   scattered over the heap, and two players' state. Ask for them a few matches ahead,
   one level deeper at each step (the match; its fields; the names and game scores;
   the players' indices, looked up once and kept in a hint for rate_one, and their
   state; their window ends and counts), so they are in cache when their turn comes.
   Each step reads only what an earlier step fetched. */
static inline PyObject *
single_name(Replay *self, PyObject *m, int side)
{
    PyObject *v = *(PyObject **)((char *)m + self->match_offsets[side]);
    return (v != NULL && PyTuple_CheckExact(v) && PyTuple_GET_SIZE(v) == 1) ? PyTuple_GET_ITEM(v, 0)
                                                                             : NULL;
}

static inline Py_ssize_t
known_index(Replay *self, PyObject *name)
{
    PyObject *found;
    if (name == NULL || !PyUnicode_CheckExact(name))
        return -1;
    found = PyDict_GetItemWithError(self->index, name);
    if (found == NULL) {
        PyErr_Clear();
        return -1;
    }
    return PyLong_AsSsize_t(found);
}

static void
clear_hints(Replay *self)
{
    int k;
    for (k = 0; k < 8; k++) {
        Py_CLEAR(self->hints[k].match);
        self->hints[k].ia = self->hints[k].ib = -1;
    }
}

static inline void
prefetch_player(Replay *self, Py_ssize_t idx, Py_ssize_t opp)
{
    Player *p;
    if (idx < 0 || idx >= self->n_players)
        return;
    p = &self->players[idx];
    if (p->cap) {
        PREFETCH(&p->win[p->head]);
        PREFETCH(&p->win[(p->head + p->len) & (p->cap - 1)]);
    }
    if (p->counts_cap && opp >= 0)
        PREFETCH(&p->counts[count_home((int32_t)opp, p->counts_cap - 1)]);
}

static inline void
prefetch_ahead(Replay *self, PyObject **items, Py_ssize_t i, Py_ssize_t n)
{
    PyObject *m, *v;
    PyTypeObject *tp = (PyTypeObject *)self->match_type;
    if (!self->fast_match)
        return;
    if (i + 7 < n) {
        PREFETCH(items[i + 7]);
        PREFETCH((char *)items[i + 7] + 64);
    }
    if (i + 5 < n && Py_TYPE(m = items[i + 5]) == tp) {
        int k;
        for (k = 0; k < N_MATCH_FIELDS; k++)
            if ((v = *(PyObject **)((char *)m + self->match_offsets[k])) != NULL)
                PREFETCH(v);
    }
    if (i + 3 < n && Py_TYPE(m = items[i + 3]) == tp) {
        if ((v = single_name(self, m, M_SIDE_A)) != NULL)
            PREFETCH(v);
        if ((v = single_name(self, m, M_SIDE_B)) != NULL)
            PREFETCH(v);
        v = *(PyObject **)((char *)m + self->match_offsets[M_GAMES]);
        if (v != NULL && PyTuple_CheckExact(v)) {
            Py_ssize_t g;
            for (g = 0; g < PyTuple_GET_SIZE(v) && g < 5; g++)
                PREFETCH(PyTuple_GET_ITEM(v, g));
        }
    }
    if (i + 2 < n && Py_TYPE(m = items[i + 2]) == tp) {
        int slot = (int)((i + 2) & 7);
        Py_XSETREF(self->hints[slot].match, Py_NewRef(m));
        self->hints[slot].name_a = single_name(self, m, M_SIDE_A);
        self->hints[slot].name_b = single_name(self, m, M_SIDE_B);
        self->hints[slot].ia = known_index(self, self->hints[slot].name_a);
        self->hints[slot].ib = known_index(self, self->hints[slot].name_b);
        if (self->hints[slot].ia >= 0)
            PREFETCH(&self->players[self->hints[slot].ia]);
        if (self->hints[slot].ib >= 0)
            PREFETCH(&self->players[self->hints[slot].ib]);
    }
    if (i + 1 < n && self->hints[(i + 1) & 7].match == items[i + 1]) {
        int slot = (int)((i + 1) & 7);
        prefetch_player(self, self->hints[slot].ia, self->hints[slot].ib);
        prefetch_player(self, self->hints[slot].ib, self->hints[slot].ia);
    }
}

PyDoc_STRVAR(run_doc,
             "run(matches, start, out, probs=None) -> stop\n\n"
             "Rate matches[start:] (a list or tuple) in order, appending each match's tuple of\n"
             "PlayerChange to the list `out` (and, given a list `probs`, first the §6 win\n"
             "probability of side A as Replayer.predict gives it). Returns the index of the\n"
             "first match left to Python (len(matches) when all were rated); nothing of that\n"
             "match was applied.");

static PyObject *
Replay_run(Replay *self, PyObject *args)
{
    PyObject *matches, *out, *probs = Py_None;
    Py_ssize_t start, i;
    int rc = RATED;
    if (!PyArg_ParseTuple(args, "OnO!|O:run", &matches, &start, &PyList_Type, &out, &probs))
        return NULL;
    if (probs == Py_None)
        probs = NULL;
    else if (!PyList_Check(probs)) {
        PyErr_SetString(PyExc_TypeError, "probs must be a list or None");
        return NULL;
    }
    if (check_ready(self) < 0)
        return NULL;
    if (!PyList_Check(matches) && !PyTuple_Check(matches)) {
        PyErr_SetString(PyExc_TypeError, "matches must be a list or a tuple");
        return NULL;
    }
    if (start < 0)
        start = 0;
    Py_INCREF(matches);
    self->busy = 1;
    for (i = start; i < PySequence_Fast_GET_SIZE(matches); i++) {
        PyObject *match = PySequence_Fast_GET_ITEM(matches, i);
        int slot = (int)(i & 7);
        prefetch_ahead(self, PySequence_Fast_ITEMS(matches), i, PySequence_Fast_GET_SIZE(matches));
        Py_INCREF(match);
        if (self->hints[slot].match == match)
            rc = rate_one(self, match, out, probs, self->hints[slot].ia, self->hints[slot].ib,
                          self->hints[slot].name_a, self->hints[slot].name_b);
        else
            rc = rate_one(self, match, out, probs, -1, -1, NULL, NULL);
        Py_CLEAR(self->hints[slot].match);
        Py_DECREF(match);
        if (rc != RATED)
            break;
        if ((i & 0xffff) == 0xffff && PyErr_CheckSignals() < 0) {
            rc = ERROR;
            break;
        }
    }
    self->busy = 0;
    clear_hints(self);
    Py_DECREF(matches);
    if (rc == ERROR)
        return NULL;
    return PyLong_FromSsize_t(i);
}

/* (ordinal, opponents) entries of a player's window, regrouping team entries. */
static PyObject *
window_entries(Replay *self, Player *p)
{
    PyObject *entries = PyList_New(0);
    int32_t i = 0;
    if (entries == NULL)
        return NULL;
    while (i < p->len) {
        int32_t j = i + 1, n, k;
        PyObject *opps, *ord, *entry;
        while (j < p->len && p->win[(p->head + j) & (p->cap - 1)].cont)
            j++;
        n = j - i;
        if ((opps = PyTuple_New(n)) == NULL)
            goto fail;
        for (k = 0; k < n; k++) {
            Entry *e = &p->win[(p->head + i + k) & (p->cap - 1)];
            PyTuple_SET_ITEM(opps, k, Py_NewRef(self->names[e->opp]));
        }
        ord = PyLong_FromLong(p->win[(p->head + i) & (p->cap - 1)].ord);
        if (ord == NULL) {
            Py_DECREF(opps);
            goto fail;
        }
        entry = PyTuple_Pack(2, ord, opps);
        Py_DECREF(ord);
        Py_DECREF(opps);
        if (entry == NULL || PyList_Append(entries, entry) < 0) {
            Py_XDECREF(entry);
            goto fail;
        }
        Py_DECREF(entry);
        i = j;
    }
    return entries;
fail:
    Py_DECREF(entries);
    return NULL;
}

static int
export_player(Replay *self, Player *p)
{
    PyObject *value = NULL, *entries = NULL, *counts = NULL;
    int32_t i;
    int rc = -1;

    if (PyObject_SetAttr(p->obj, str_rating, p->rating_obj) < 0 ||
        PyObject_SetAttr(p->obj, str_rd, p->rd_obj) < 0 ||
        PyObject_SetAttr(p->obj, str_volatility, p->vol_obj) < 0)
        return -1;
    if ((value = PyLong_FromLongLong(p->matches)) == NULL ||
        PyObject_SetAttr(p->obj, str_matches, value) < 0)
        goto done;
    Py_CLEAR(value);
    value = p->last ? PyLong_FromLongLong(p->last) : Py_NewRef(Py_None);
    if (value == NULL || PyObject_SetAttr(p->obj, str_last, value) < 0)
        goto done;
    Py_CLEAR(value);
    if ((entries = window_entries(self, p)) == NULL)
        goto done;
    if ((value = PyObject_CallOneArg(self->deque_type, entries)) == NULL ||
        PyObject_SetAttr(p->obj, str_recent, value) < 0)
        goto done;
    Py_CLEAR(value);
    if ((counts = PyDict_New()) == NULL)
        goto done;
    for (i = 0; i < p->len; i++) {
        PyObject *name = self->names[p->win[(p->head + i) & (p->cap - 1)].opp], *had, *now;
        long long before = 0;
        had = PyDict_GetItemWithError(counts, name);
        if (had != NULL)
            before = PyLong_AsLongLong(had);
        else if (PyErr_Occurred())
            goto done;
        if ((now = PyLong_FromLongLong(before + 1)) == NULL)
            goto done;
        if (PyDict_SetItem(counts, name, now) < 0) {
            Py_DECREF(now);
            goto done;
        }
        Py_DECREF(now);
    }
    if (PyObject_SetAttr(p->obj, str_counts, counts) < 0)
        goto done;
    if ((value = PyLong_FromLong(p->len)) == NULL ||
        PyObject_SetAttr(p->obj, str_slots, value) < 0)
        goto done;
    rc = 0;
done:
    Py_XDECREF(value);
    Py_XDECREF(entries);
    Py_XDECREF(counts);
    return rc;
}

PyDoc_STRVAR(export_doc,
             "export() -> (last_ordinal, last_id)\n\n"
             "Write every player changed since the last export back to its _Player.");

static PyObject *
Replay_export(Replay *self, PyObject *Py_UNUSED(ignored))
{
    if (check_ready(self) < 0)
        return NULL;
    while (self->n_dirty) {
        Player *p = &self->players[self->dirty[self->n_dirty - 1]];
        if (p->dirty && p->obj != NULL && export_player(self, p) < 0)
            return NULL;
        p->dirty = 0;
        self->n_dirty--;
    }
    return Py_BuildValue("(LO)", self->last_ordinal, self->last_id);
}

PyDoc_STRVAR(forget_doc,
             "forget(names, last_ordinal, last_id)\n\n"
             "After Python rated a match itself: reload these players when they next play,\n"
             "and continue from Python's last rated match.");

static PyObject *
Replay_forget(Replay *self, PyObject *args)
{
    PyObject *names, *seq, *last_id;
    long long last_ordinal;
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "OLO:forget", &names, &last_ordinal, &last_id))
        return NULL;
    if (check_ready(self) < 0)
        return NULL;
    if ((seq = PySequence_Fast(names, "names must be a sequence")) == NULL)
        return NULL;
    for (i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *found = PyDict_GetItemWithError(self->index, PySequence_Fast_GET_ITEM(seq, i));
        if (found != NULL) {
            Py_ssize_t idx = PyLong_AsSsize_t(found);
            if (idx < 0) {
                Py_DECREF(seq);
                return NULL;
            }
            player_clear(&self->players[idx]);
        }
        else if (PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    self->last_ordinal = last_ordinal;
    Py_SETREF(self->last_id, Py_NewRef(last_id));
    Py_RETURN_NONE;
}

static PyMethodDef Replay_methods[] = {
    {"run", (PyCFunction)Replay_run, METH_VARARGS, run_doc},
    {"export", (PyCFunction)Replay_export, METH_NOARGS, export_doc},
    {"forget", (PyCFunction)Replay_forget, METH_VARARGS, forget_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(Replay_doc,
             "Replay(*, constants, player, outcomes, outcome, change, change_fields, fast_change,\n"
             "       match, match_fields, deque, last)\n\n"
             "A working copy of a Replayer for one rate_all call (see the module docstring).");

static PyObject *
Replay_get_fast(Replay *self, void *Py_UNUSED(closure))
{
    return Py_BuildValue("(OO)", self->fast_match ? Py_True : Py_False,
                         self->fast_change ? Py_True : Py_False);
}

static PyGetSetDef Replay_getset[] = {
    {"fast", (getter)Replay_get_fast, NULL,
     "(Match fields read directly, PlayerChange filled directly): both True normally", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ReplayType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ratings.engine._native.Replay",
    .tp_basicsize = sizeof(Replay),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = Replay_doc,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Replay_init,
    .tp_dealloc = (destructor)Replay_dealloc,
    .tp_traverse = (traverseproc)Replay_traverse,
    .tp_clear = (inquiry)Replay_clear,
    .tp_methods = Replay_methods,
    .tp_getset = Replay_getset,
};

/* -------------------------------------------------------------------------- */
/* Module                                                                        */

PyDoc_STRVAR(update_one_doc,
             "update_one(mu, phi, sigma, mu_opp, phi_opp, score, weight, tau, slope, gate_open,\n"
             "           three_over_pi_squared, epsilon, max_iterations, max_bracket_steps)\n\n"
             "glicko2.update_one in C: (mu', phi', sigma', E), or None where the Python\n"
             "function would raise.");

static PyObject *
native_update_one(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double x[11], out[4];
    long long caps[2];
    Maths m;
    int i, gate;
    if (nargs != 14) {
        PyErr_SetString(PyExc_TypeError, "update_one takes 14 arguments");
        return NULL;
    }
    for (i = 0; i < 9; i++)
        if (as_double(args[i], &x[i]) < 0)
            return NULL;
    if ((gate = PyObject_IsTrue(args[9])) < 0 || as_double(args[10], &x[9]) < 0 ||
        as_double(args[11], &x[10]) < 0)
        return NULL;
    for (i = 0; i < 2; i++) {
        caps[i] = PyLong_AsLongLong(args[12 + i]);
        if (caps[i] == -1 && PyErr_Occurred())
            return NULL;
    }
    m.scale = 173.7178;
    m.tau = x[7];
    m.slope = x[8];
    m.three_over_pi2 = x[9];
    m.epsilon = x[10];
    m.max_iterations = caps[0];
    m.max_bracket_steps = caps[1];
    if (update_one(&m, x[0], x[1], x[2], x[3], x[4], x[5], x[6], gate, out))
        Py_RETURN_NONE;
    return Py_BuildValue("(dddd)", out[0], out[1], out[2], out[3]);
}

static PyMethodDef native_methods[] = {
    {"update_one", (PyCFunction)(void (*)(void))native_update_one, METH_FASTCALL, update_one_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(module_doc, "The singles hot path of Replayer.rate_all in C (optional; see replay.py).");

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "ratings.engine._native", module_doc, -1, native_methods,
};

PyMODINIT_FUNC
PyInit__native(void)
{
    PyObject *module;
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL)
        return NULL;
    if (PyType_Ready(&ReplayType) < 0)
        return NULL;
#define INTERN(var, text)                                                                  \
    if ((var = PyUnicode_InternFromString(text)) == NULL)                                   \
        return NULL;
    INTERN(str_rating, "rating");
    INTERN(str_rd, "rd");
    INTERN(str_volatility, "volatility");
    INTERN(str_matches, "matches");
    INTERN(str_last, "last");
    INTERN(str_recent, "recent");
    INTERN(str_counts, "counts");
    INTERN(str_slots, "slots");
#undef INTERN
    module = PyModule_Create(&native_module);
    if (module == NULL)
        return NULL;
    Py_INCREF(&ReplayType);
    if (PyModule_AddObject(module, "Replay", (PyObject *)&ReplayType) < 0 ||
        PyModule_AddIntConstant(module, "API_VERSION", API_VERSION) < 0) {
        Py_DECREF(&ReplayType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
