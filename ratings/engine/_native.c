/* The rating update in C (RATINGS.md §3 and §5): the one implementation every path
   runs, singles and teams, every team method, both outcome models, the wrong-way floor.

   Two layers. The kernel (`rate_match`, `rate_side`, `update`, `finish`,
   `new_volatility`) takes plain doubles: each player's state at the start of a match
   (RD grown for inactivity, repetition weights and diversity gate counted) and returns
   their new, bounded states. Python reaches it through `rate_sides`, `update`,
   `update_one`, `finish` and `new_volatility` (glicko2.py and teams.py are thin wrappers).

   The replay (`Replay`, used by every `Replayer.rate`, `rate_all` and `predict_rate_all`)
   runs the rest of §3 around the kernel: the inactivity growth of step 1, the lookback
   window of steps 4 and 7, and the PlayerChange of every player. `replay.py` stays the
   owner of every player's state between calls, snapshots, predictions and error
   messages. A `Replay` object is a working copy for one call: it loads a player from the
   Replayer's Python `_Player` the first time the player appears, and writes the players
   it changed back with `export()`.

   A match whose input it does not take as is (a date before the last rated match, a
   score line that fails validation, a match against oneself, sides given as lists, more
   than MAX_SIDE players a side) makes `run` stop *before* changing anything for that
   match and return its index; Python then raises the match's error, or hands the match
   back in plain form. An update that cannot finish (volatility iteration cap, a value out
   of range) raises EngineError here, with nothing of that match applied.

   The replay takes matches in two forms, and rates both with one step (`step_rate`: steps
   1, 4 and 7 around the kernel, then `step_commit`): MatchResult objects (`run`, building a
   PlayerChange per player), or a `History`, the matches encoded once in columns
   (`run_history`, reading no Python object per match and writing each change as a row of
   plain numbers into a `Changes`, whose PlayerChange are built only when asked for).

   Per player: rating, RD, volatility (as doubles and as the Python objects
   handed out in PlayerChange, so consecutive changes share them; the columnar run leaves
   the objects to be made when needed), match count, last ordinal, and the lookback window
   as a ring buffer of (ordinal, opponent index), with the count of matches against each
   opponent inside the window in a small open-addressing hash table per player. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>
#include <structmember.h>

#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

/* Results must equal Python's bit for bit: no fused multiply-add. */
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* Bumped whenever the Python-facing interface changes; replay.py ignores a module
   built from another version (a stale in-tree build) and stays pure Python. */
#define API_VERSION 8

/* The most rating periods a season's start may add (replay.MAX_SEASON_START_PERIODS): it
   keeps idle_periods' arithmetic far from overflow. */
#define MAX_PER_START 1000
#define MAX_PER_START_TEXT "1000"

#define N_CHANGE_FIELDS 16
#define N_MATCH_FIELDS 6
enum { M_PLAYED_ON, M_SIDE_A, M_SIDE_B, M_GAMES, M_ID, M_STATS };

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

#define MAX_SIDE 16 /* players a side: a ladder allows 5 */

/* Failure codes of the arithmetic: where the update cannot finish. The Python entry
   points raise EngineError for each; the replay leaves such a match to Replayer.rate,
   which raises it. */
#define ERR_MATH 1       /* a division by zero, an overflow, a log or sqrt out of domain */
#define ERR_ITERATIONS 2 /* the volatility iteration did not converge (MAX_VOLATILITY_ITERATIONS) */
#define ERR_BRACKET 3    /* no bracket for the volatility root (MAX_BRACKET_STEPS) */

/* §3 step 6: sigma' by Glickman's (2012) Illinois iteration (his step 5). f(x) is
   written out inline; its readable form is glicko2.volatility_objective. */
static int
new_volatility(const Maths *m, double delta, double phi, double v, double sigma, double *out)
{
    double a, p2v, rest, inv_tau2, ex, den, f_a, f_b, f_c, big_a, big_b, big_c, r;
    long long k, iterations;

    if (py_log(sigma * sigma, &a))
        return ERR_MATH;
    p2v = phi * phi + v;
    rest = delta * delta - p2v; /* Delta^2 - phi^2 - v */
    DIV(inv_tau2, 1.0, m->tau * m->tau);
    /* f(a): the (x - a) term vanishes and e^a = sigma^2. */
    ex = sigma * sigma;
    den = p2v + ex;
    DIV(f_a, ex * (rest - ex), 2.0 * den * den);
    big_a = a;
    if (rest > 0.0) {
        if (py_log(rest, &big_b))
            return ERR_MATH;
        /* e^B = Delta^2 - phi^2 - v: the first term of f(B) is exactly zero. */
        f_b = -(big_b - a) * inv_tau2;
    }
    else {
        k = 0;
        for (;;) {
            k += 1;
            if (k > m->max_bracket_steps)
                return ERR_BRACKET;
            big_b = a - (double)k * m->tau;
            if (py_exp(big_b, &ex))
                return ERR_MATH;
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
            return ERR_ITERATIONS;
        DIV(r, (big_a - big_b) * f_a, f_b - f_a);
        big_c = big_a + r;
        if (py_exp(big_c, &ex))
            return ERR_MATH;
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
    return py_exp(big_a / 2.0, out) ? ERR_MATH : 0;
}

/* §3 steps 6-8 from v and improvement = sum(m w_j g_j (s_j - E_j)): out = (mu', phi', sigma').
   With the gate closed (too few distinct opponents) RD cannot shrink: phi' = max(phi, phi*). */
static inline int
finish(const Maths *m, double mu, double phi, double sigma, double v, double improvement,
       int gate_open, double out[3])
{
    double sigma_new, phi_star_sq, phi_star, phi_new, r;
    int rc = new_volatility(m, v * improvement, phi, v, sigma, &sigma_new);
    if (rc)
        return rc;
    phi_star_sq = phi * phi + sigma_new * sigma_new;
    if (gate_open) {
        double inv_star, inv_v;
        DIV(inv_star, 1.0, phi_star_sq);
        DIV(inv_v, 1.0, v);
        if (py_sqrt(inv_star + inv_v, &r))
            return ERR_MATH;
        DIV(phi_new, 1.0, r);
    }
    else {
        if (py_sqrt(phi_star_sq, &phi_star))
            return ERR_MATH;
        phi_new = phi > phi_star ? phi : phi_star;
    }
    out[0] = mu + phi_new * phi_new * improvement;
    out[1] = phi_new;
    out[2] = sigma_new;
    return 0;
}

/* §3 step 3: g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2). */
static inline int
g_of(const Maths *m, double phi, double *out)
{
    double root;
    if (py_sqrt(1.0 + m->three_over_pi2 * phi * phi, &root))
        return ERR_MATH;
    DIV(*out, 1.0, root);
    return 0;
}

/* §3 steps 3-8 against several opponents in one rating period: out = (mu', phi', sigma').
   results[j] = (mu_j, phi_j, s_j, m * weight_j). E (1 - E) is written z / (1 + z)^2, which
   keeps its precision when E is within 1e-16 of 1. */
static int
update(const Maths *m, double mu, double phi, double sigma, const double (*results)[4],
       Py_ssize_t n, int gate_open, double out[3])
{
    double information = 0.0, improvement = 0.0, g_j, z, e_j, v;
    Py_ssize_t j;
    for (j = 0; j < n; j++) {
        if (g_of(m, results[j][1], &g_j) || py_exp(-g_j * (mu - results[j][0]) * m->slope, &z))
            return ERR_MATH;
        DIV(e_j, 1.0, 1.0 + z);
        information += results[j][3] * g_j * g_j * z * e_j * e_j;
        improvement += results[j][3] * g_j * (results[j][2] - e_j);
    }
    DIV(v, 1.0, information);
    return finish(m, mu, phi, sigma, v, improvement, gate_open, out);
}

/* `update` against one (possibly composite) opponent: out = (mu', phi', sigma', E). */
static int
update_one(const Maths *m, double mu, double phi, double sigma, double mu_opp, double phi_opp,
           double score, double weight, int gate_open, double out[4])
{
    double g_o, z, e, v, improvement;
    int rc;
    if (g_of(m, phi_opp, &g_o) || py_exp(-g_o * (mu - mu_opp) * m->slope, &z))
        return ERR_MATH;
    DIV(e, 1.0, 1.0 + z);
    DIV(v, 1.0, weight * g_o * g_o * z * e * e);
    improvement = weight * g_o * (score - e);
    if ((rc = finish(m, mu, phi, sigma, v, improvement, gate_open, out)))
        return rc;
    out[3] = e;
    return 0;
}

/* -------------------------------------------------------------------------- */
/* One match, every team method (RATINGS.md §5), singles included               */

/* The order of types.TEAM_METHODS and types.COMPOSITE_RD_CHOICES. */
enum { COMPOSITE_OPPONENT, INDIVIDUAL, COMPOSITE_TEAM, PERFORMANCE_WEIGHTED, GLICKO1_TEAM };
enum { RD_MEAN, RD_RMS_OF_MEAN, RD_RMS };

/* glicko1_team works in rating points with Glicko-1's q and the boost of the Pokémon 2v2
   seed: b(RD) = 0.5 (350 - RD), no boost at 350 (Glicko-1's RD for an unrated player). */
#define G1_BOOST_SLOPE 0.5
#define G1_BOOST_ZERO_RD 350.0

/* A ladder's rules: the parameters of one match's update beyond the arithmetic's. */
typedef struct {
    Maths maths;
    double center, low, high, rd_max;
    int floor; /* §3 step 9: the wrong-way floor */
    int method, composite_rd;
    int has_delta_max;
    double delta_max, g1_scale, g1_rd_max;
    int g1_boost;
    double g1_q, g1_three_q2_over_pi2;
} Rules;

/* One player at the start of a match: RD already grown for inactivity (step 1), the
   repetition weight against each opponent (step 4, in the other side's order) and the
   diversity gate (step 7) already counted. */
typedef struct {
    double rating, rd, vol;
    const double *weights;
    int gate;
    double perf; /* performance_weighted's weight (1 without stats) */
} Contestant;

/* One player's new, bounded state and what produced it (teams.Result). */
typedef struct {
    double rating, rd, vol, expected, weight, perf;
    int floored;
} Result;

static inline double
mu_of(const Rules *r, double rating)
{
    return (rating - r->center) / r->maths.scale;
}

/* A side's RD on the Glicko-2 scale: mean, rms_of_mean (sqrt(sum phi^2) / n) or rms. */
static int
composite_phi(const Rules *r, const Contestant *side, Py_ssize_t n, int how, double *out)
{
    double total = 0.0, squares = 0.0, phi;
    Py_ssize_t i;
    for (i = 0; i < n; i++) {
        phi = side[i].rd / r->maths.scale;
        total += phi;
        squares += phi * phi;
    }
    if (how == RD_MEAN)
        *out = total / (double)n;
    else if (how == RD_RMS_OF_MEAN) {
        if (py_sqrt(squares, out))
            return ERR_MATH;
        *out = *out / (double)n;
    }
    else if (py_sqrt(squares / (double)n, out))
        return ERR_MATH;
    return 0;
}

static inline double
mean_weight(const Contestant *p, Py_ssize_t n_opp)
{
    double total = 0.0;
    Py_ssize_t j;
    for (j = 0; j < n_opp; j++)
        total += p->weights[j];
    return total / (double)n_opp;
}

/* §3 step 9: rating clamped, RD capped, then the wrong-way floor: a winner's rating never
   ends below `before`, a loser's never above it. */
static inline void
bounded(const Rules *r, double rating, double before, double rd, int won, Result *out)
{
    rating = rating < r->low ? r->low : rating > r->high ? r->high : rating;
    out->floored = 0;
    if (r->floor && (won ? rating < before : rating > before)) {
        rating = before;
        out->floored = 1;
    }
    out->rating = rating;
    out->rd = rd < r->rd_max ? rd : r->rd_max;
}

/* The new rating as the old one plus the change, R + 173.7178 (mu' - mu). Not
   173.7178 mu' + centre: that round trip can land an ulp below R when mu' equals mu, and a
   winner whose update did not move them would seem to lose rating. */
static inline double
moved(const Rules *r, double rating, double mu_new)
{
    return rating + r->maths.scale * (mu_new - mu_of(r, rating));
}

/* Every player of `side` after meeting `opp` with outcome `s` (the side's), multiplier
   `mult` (m, §3 step 2) and `won` (the side won the match, for the floor). */
static int
rate_side(const Rules *r, const Contestant *side, Py_ssize_t n, const Contestant *opp,
          Py_ssize_t n_opp, double s, double mult, int won, Result *out)
{
    const Maths *m = &r->maths;
    double res[4], mu_c = 0.0, phi_c, weight, e;
    Py_ssize_t i, j;
    int rc;

    switch (r->method) {
    case COMPOSITE_OPPONENT:
    case PERFORMANCE_WEIGHTED:
        /* Each player against one composite opponent (thesis algorithm 2). performance_weighted:
           the composite RD is rms_of_mean, and the change is scaled by the player's weight,
           mu' = mu + w (mu* - mu), then bounded by delta_max (team-performance seed). */
        for (j = 0; j < n_opp; j++)
            mu_c += mu_of(r, opp[j].rating);
        mu_c = mu_c / (double)n_opp;
        if (composite_phi(r, opp, n_opp,
                          r->method == PERFORMANCE_WEIGHTED ? RD_RMS_OF_MEAN : r->composite_rd,
                          &phi_c))
            return ERR_MATH;
        for (i = 0; i < n; i++) {
            const Contestant *p = &side[i];
            double mu = mu_of(r, p->rating), rating;
            weight = mean_weight(p, n_opp);
            if ((rc = update_one(m, mu, p->rd / m->scale, p->vol, mu_c, phi_c, s, weight * mult,
                                 p->gate, res)))
                return rc;
            if (r->method == COMPOSITE_OPPONENT) {
                rating = moved(r, p->rating, res[0]);
                out[i].perf = 1.0;
            }
            else {
                double change = m->scale * p->perf * (res[0] - mu);
                if (r->has_delta_max)
                    change = change < -r->delta_max ? -r->delta_max
                             : change > r->delta_max ? r->delta_max
                                                     : change;
                rating = p->rating + change;
                out[i].perf = p->perf;
            }
            bounded(r, rating, p->rating, m->scale * res[1], won, &out[i]);
            out[i].vol = res[2];
            out[i].expected = res[3];
            out[i].weight = weight;
        }
        return 0;

    case INDIVIDUAL: {
        /* Each opponent a separate result in the same rating period (thesis algorithm 1). */
        double terms[MAX_SIDE][4];
        if (n_opp > MAX_SIDE)
            return ERR_MATH;
        for (i = 0; i < n; i++) {
            const Contestant *p = &side[i];
            double mu = mu_of(r, p->rating), g_j, z, e_j, total = 0.0;
            for (j = 0; j < n_opp; j++) {
                terms[j][0] = mu_of(r, opp[j].rating);
                terms[j][1] = opp[j].rd / m->scale;
                terms[j][2] = s;
                terms[j][3] = p->weights[j] * mult;
            }
            if ((rc = update(m, mu, p->rd / m->scale, p->vol, (const double(*)[4])terms, n_opp,
                             p->gate, res)))
                return rc;
            for (j = 0; j < n_opp; j++) {
                if (g_of(m, terms[j][1], &g_j) || py_exp(-g_j * (mu - terms[j][0]) * m->slope, &z))
                    return ERR_MATH;
                DIV(e_j, 1.0, 1.0 + z);
                total += e_j;
            }
            bounded(r, moved(r, p->rating, res[0]), p->rating, m->scale * res[1], won, &out[i]);
            out[i].vol = res[2];
            out[i].expected = total / (double)n_opp;
            out[i].weight = mean_weight(p, n_opp);
            out[i].perf = 1.0;
        }
        return 0;
    }

    case COMPOSITE_TEAM: {
        /* Side composite against opposing composite (thesis algorithm 3, with phi' squared).
           E, v and Delta once per side; the side's weight is the mean of its players' mean
           weights, so v and Delta really are the same for every player; each player then gets
           their own volatility, phi' (own gate) and mu' = mu_i + phi'^2 m w g(phi_b) (s - E). */
        double mu_a = 0.0, mu_b = 0.0, phi_b, informed, g_b, z, v, improvement;
        for (i = 0; i < n; i++)
            mu_a += mu_of(r, side[i].rating);
        mu_a = mu_a / (double)n;
        for (j = 0; j < n_opp; j++)
            mu_b += mu_of(r, opp[j].rating);
        mu_b = mu_b / (double)n_opp;
        if (composite_phi(r, opp, n_opp, r->composite_rd, &phi_b))
            return ERR_MATH;
        weight = 0.0;
        for (i = 0; i < n; i++)
            weight += mean_weight(&side[i], n_opp);
        weight = weight / (double)n;
        informed = weight * mult;
        if (g_of(m, phi_b, &g_b) || py_exp(-g_b * (mu_a - mu_b) * m->slope, &z))
            return ERR_MATH;
        DIV(e, 1.0, 1.0 + z);
        DIV(v, 1.0, informed * g_b * g_b * z * e * e);
        improvement = informed * g_b * (s - e);
        for (i = 0; i < n; i++) {
            const Contestant *p = &side[i];
            if ((rc = finish(m, mu_of(r, p->rating), p->rd / m->scale, p->vol, v, improvement,
                             p->gate, res)))
                return rc;
            bounded(r, moved(r, p->rating, res[0]), p->rating, m->scale * res[1], won, &out[i]);
            out[i].vol = res[2];
            out[i].expected = e;
            out[i].weight = weight;
            out[i].perf = 1.0;
        }
        return 0;
    }

    case GLICKO1_TEAM: {
        /* Glicko-1 in rating points, team RD the RMS of its players', the certainty boost
           (Pokémon 2v2 seed). The match carries m times the information:
           RD'^2 = 1 / (1/RD^2 + m/d^2), Delta R = scale rdFactor q RD'^2 m g(RD_opp) (s - E). */
        double rd_own = 0.0, rd_opp = 0.0, r_own = 0.0, r_opp = 0.0, root, g_opp, power, inv_d2;
        for (i = 0; i < n; i++) {
            rd_own += side[i].rd * side[i].rd;
            r_own += side[i].rating;
        }
        for (j = 0; j < n_opp; j++) {
            rd_opp += opp[j].rd * opp[j].rd;
            r_opp += opp[j].rating;
        }
        if (py_sqrt(rd_own / (double)n, &rd_own) || py_sqrt(rd_opp / (double)n_opp, &rd_opp))
            return ERR_MATH;
        r_own = r_own / (double)n;
        r_opp = r_opp / (double)n_opp;
        if (r->g1_boost) {
            r_own += G1_BOOST_SLOPE * (G1_BOOST_ZERO_RD - rd_own);
            r_opp += G1_BOOST_SLOPE * (G1_BOOST_ZERO_RD - rd_opp);
        }
        if (py_sqrt(1.0 + r->g1_three_q2_over_pi2 * rd_opp * rd_opp, &root))
            return ERR_MATH;
        DIV(g_opp, 1.0, root);
        power = pow(10.0, -g_opp * (r_own - r_opp) / 400.0);
        if (isinf(power))
            return ERR_MATH;
        DIV(e, 1.0, 1.0 + power);
        inv_d2 = r->g1_q * r->g1_q * g_opp * g_opp * e * (1.0 - e);
        for (i = 0; i < n; i++) {
            const Contestant *p = &side[i];
            double precision, rd_factor, change, inv_rd2, rd_new, a, b;
            DIV(inv_rd2, 1.0, p->rd * p->rd);
            precision = inv_rd2 + mult * inv_d2;
            DIV(a, 1.0, r->g1_scale);
            b = p->rd / r->g1_rd_max;
            rd_factor = a >= b ? a : b;
            DIV(change, r->g1_scale * rd_factor * r->g1_q, precision);
            change = change * mult * g_opp * (s - e);
            DIV(rd_new, 1.0, precision);
            if (py_sqrt(rd_new, &rd_new))
                return ERR_MATH;
            bounded(r, p->rating + change, p->rating, rd_new, won, &out[i]);
            out[i].vol = p->vol;
            out[i].expected = e;
            out[i].weight = 1.0;
            out[i].perf = 1.0;
        }
        return 0;
    }
    }
    return ERR_MATH;
}

/* teams.rate_sides: both sides from the states before the match. */
static inline int
rate_match(const Rules *r, const Contestant *a, Py_ssize_t n_a, const Contestant *b,
           Py_ssize_t n_b, double s_a, double s_b, double mult, int a_won, Result *out_a,
           Result *out_b)
{
    int rc = rate_side(r, a, n_a, b, n_b, s_a, mult, a_won, out_a);
    return rc ? rc : rate_side(r, b, n_b, a, n_a, s_b, mult, !a_won, out_b);
}

/* EngineError (ratings.engine.types), raised by the module's functions. */
static PyObject *engine_error;

/* Raise EngineError for a failure code of the arithmetic. */
static void
raise_failure(int code, const Maths *m)
{
    if (code == ERR_ITERATIONS)
        PyErr_Format(engine_error,
                     "volatility iteration did not converge in %lld steps: the rating update "
                     "cannot finish with these parameters",
                     m->max_iterations);
    else if (code == ERR_BRACKET)
        PyErr_Format(engine_error,
                     "volatility bracket not found after %lld steps (a value is NaN or infinite)",
                     m->max_bracket_steps);
    else
        PyErr_SetString(engine_error,
                        "the rating update went out of range (a division by zero, an overflow "
                        "or a square root or logarithm of a non-positive number)");
}

/* The arithmetic's constants: (scale, tau, slope, three_over_pi_squared, epsilon, max_iterations,
   max_bracket_steps) as glicko2.py states them. */
static int
parse_maths(PyObject *t, Maths *m)
{
    if (!PyTuple_Check(t)) {
        PyErr_SetString(PyExc_TypeError, "maths must be a tuple");
        return -1;
    }
    return PyArg_ParseTuple(t, "dddddLL;maths", &m->scale, &m->tau, &m->slope, &m->three_over_pi2,
                            &m->epsilon, &m->max_iterations, &m->max_bracket_steps)
               ? 0
               : -1;
}

/* A ladder's rules from teams.native_rules(params): (maths, center, low, high, rd_max,
   floor, method, composite_rd, delta_max or None, g1_scale, g1_rd_max, g1_boost). */
static int
parse_rules(PyObject *t, Rules *r)
{
    PyObject *maths, *delta_max;
    if (!PyTuple_Check(t)) {
        PyErr_SetString(PyExc_TypeError, "rules must be a tuple");
        return -1;
    }
    if (!PyArg_ParseTuple(t, "O!ddddpiiOddp;rules", &PyTuple_Type, &maths, &r->center, &r->low,
                          &r->high, &r->rd_max, &r->floor, &r->method, &r->composite_rd,
                          &delta_max, &r->g1_scale, &r->g1_rd_max, &r->g1_boost) ||
        parse_maths(maths, &r->maths) < 0)
        return -1;
    if (r->method < COMPOSITE_OPPONENT || r->method > GLICKO1_TEAM || r->composite_rd < RD_MEAN ||
        r->composite_rd > RD_RMS) {
        PyErr_SetString(PyExc_ValueError, "unknown team method or composite_rd");
        return -1;
    }
    r->has_delta_max = delta_max != Py_None;
    r->delta_max = 0.0;
    if (r->has_delta_max && (r->delta_max = PyFloat_AsDouble(delta_max)) == -1.0 &&
        PyErr_Occurred())
        return -1;
    r->g1_q = log(10.0) / 400.0;
    r->g1_three_q2_over_pi2 = 3.0 * r->g1_q * r->g1_q / (Py_MATH_PI * Py_MATH_PI);
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

/* How a MatchResult's fields are read: its slots directly when it is the plain slotted
   dataclass, else by attribute; or, when the type given is `tuple`, the items of a plain
   row (played_on, side_a, side_b, games, id, stats), as a database query gives them. */
typedef struct {
    PyObject *type;
    PyObject *names[N_MATCH_FIELDS];
    Py_ssize_t offsets[N_MATCH_FIELDS];
    int fast;
    int rows;
} MatchReader;

typedef struct {
    PyObject_HEAD
    Rules rules;
    long long lookback, period;
    double alpha, threshold, phi_max;
    /* §3 step 1's season starts: `per_start` more periods for each first day in `starts`
       (ordinals, increasing) a player crosses between two matches */
    long long per_start;
    long long *starts;
    Py_ssize_t n_starts;
    /* the Replayer's collaborators */
    PyObject *player_fn;  /* name -> _Player (Replayer._player) */
    PyObject *outcomes;   /* dict: games -> (s_a, m, a_won, s_b, Outcome) (Replayer._outcomes) */
    PyObject *outcome_fn; /* games -> the same, validating and caching (Replayer._outcome) */
    PyObject *perf_fn;    /* match -> (weights of side A, of side B) (Replayer._performance) */
    PyObject *change_type;
    Py_ssize_t change_offsets[N_CHANGE_FIELDS];
    int fast_change; /* fill PlayerChange slots directly */
    MatchReader reader;
    PyObject *deque_type;
    PyObject *one; /* 1.0 */
    /* state */
    long long last_ordinal;
    PyObject *last_id;
    /* last_id as a C integer for the columnar run: LAST_NONE, LAST_INT (last_id_ll) or
       LAST_OTHER (compare the objects) */
    int last_kind;
    long long last_id_ll;
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

/* Replay.last_kind */
#define LAST_NONE 0
#define LAST_INT 1
#define LAST_OTHER 2

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
match_field(const MatchReader *r, PyObject *match, int i)
{
    if (r->rows) {
        if (PyTuple_CheckExact(match) && PyTuple_GET_SIZE(match) == N_MATCH_FIELDS)
            return Py_NewRef(PyTuple_GET_ITEM(match, i));
        PyErr_SetString(PyExc_TypeError,
                        "a match row is (played_on, side_a, side_b, games, id, stats)");
        return NULL;
    }
    if (r->fast && Py_TYPE(match) == (PyTypeObject *)r->type) {
        PyObject *v = *(PyObject **)((char *)match + r->offsets[i]);
        if (v != NULL) {
            Py_INCREF(v);
            return v;
        }
    }
    return PyObject_GetAttr(match, r->names[i]);
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
/* One match: Replayer.rate                                                     */

/* §3 step 1 (glicko2.inflate): phi grown by `periods` whole rating periods without a
   match, capped at phi_max; every path that grows an RD for inactivity calls this. */
static int
inflate(double phi, double sigma, long long periods, double phi_max, double *out)
{
    double grown;
    if (periods <= 0) {
        *out = phi;
        return 0;
    }
    if (py_sqrt(phi * phi + (double)periods * sigma * sigma, &grown))
        return 1;
    *out = grown < phi_max ? grown : phi_max;
    return 0;
}

/* How many of the increasing `starts` are at most `day`. */
static Py_ssize_t
starts_until(const long long *starts, Py_ssize_t n, long long day)
{
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (starts[mid] <= day)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* §3 step 1 (predict.inactivity_periods): the rating periods a player's RD grows by before
   a match on day `on` when their last rated match was on day `last` (ordinals; 0: none, a
   new player, who grows nothing): whole periods of `period` days, plus `per_start` for
   each season whose first day F (in `starts`, increasing) has last < F <= on. */
static long long
idle_periods(long long last, long long on, long long period, const long long *starts,
             Py_ssize_t n_starts, long long per_start)
{
    long long periods;
    if (last == 0 || on <= last)
        return 0;
    periods = on - last >= period ? (on - last) / period : 0;
    if (per_start > 0 && n_starts > 0)
        periods += per_start * (long long)(starts_until(starts, n_starts, on) -
                                           starts_until(starts, n_starts, last));
    return periods;
}

/* The season starts as a C array (increasing ordinals): 0, or -1 with an exception set
   for anything but a sequence of increasing integers. *out is NULL for none. */
static int
parse_starts(PyObject *seq, long long **out, Py_ssize_t *n_out)
{
    PyObject *fast = PySequence_Fast(seq, "season starts must be a sequence of ordinals");
    Py_ssize_t i, n;
    long long *starts = NULL;
    *out = NULL;
    *n_out = 0;
    if (fast == NULL)
        return -1;
    n = PySequence_Fast_GET_SIZE(fast);
    if (n > 0 && (starts = PyMem_New(long long, n)) == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (i = 0; i < n; i++) {
        starts[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (starts[i] == -1 && PyErr_Occurred())
            goto fail;
        if (starts[i] < 1 || (i > 0 && starts[i] <= starts[i - 1])) {
            PyErr_SetString(PyExc_ValueError,
                            "season starts must be date ordinals in increasing order");
            goto fail;
        }
    }
    Py_DECREF(fast);
    *out = starts;
    *n_out = n;
    return 0;
fail:
    Py_DECREF(fast);
    PyMem_Free(starts);
    return -1;
}

/* predict.win_probability (points in, P out), with the RDs already grown for inactivity
   to the match date, as predict.inflated_rd does: mean rating and RMS RD of each side. */
static int
win_probability(const Maths *m, const double *ratings, const double *rds, Py_ssize_t n_a,
                Py_ssize_t n_b, double *out)
{
    double sums[2] = {0.0, 0.0}, squares[2] = {0.0, 0.0}, mu[2], phi[2], t, spread, z;
    Py_ssize_t i, side, n[2] = {n_a, n_b};
    for (i = 0; i < n_a + n_b; i++) {
        side = i >= n_a;
        sums[side] += ratings[i];
        squares[side] += rds[i] * rds[i];
    }
    for (side = 0; side < 2; side++) {
        mu[side] = sums[side] / (double)n[side] / m->scale;
        if (py_sqrt(squares[side] / (double)n[side], &phi[side]))
            return 1;
        phi[side] = phi[side] / m->scale;
    }
    if (py_sqrt(phi[0] * phi[0] + phi[1] * phi[1], &t) ||
        py_sqrt(1.0 + m->three_over_pi2 * t * t, &spread))
        return 1;
    DIV(spread, 1.0, spread);
    if (py_exp(-spread * (mu[0] - mu[1]) * m->slope, &z))
        return 1;
    DIV(*out, 1.0, 1.0 + z);
    return 0;
}

/* The players of one side: a tuple of 1..MAX_SIDE names, else 0 (Python's). */
static inline Py_ssize_t
side_size(PyObject *side)
{
    Py_ssize_t n;
    if (!PyTuple_CheckExact(side))
        return 0;
    n = PyTuple_GET_SIZE(side);
    return n <= MAX_SIDE ? n : 0;
}

/* performance_weighted: each player's weight from `pair`, the (weights of side A, weights
   of side B) that Replayer._performance returns. */
static int
read_performance(PyObject *pair, double *perf, Py_ssize_t n_a, Py_ssize_t n_b)
{
    Py_ssize_t side, i, n;
    if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_SetString(PyExc_TypeError, "performance weights: (side A, side B)");
        return -1;
    }
    for (side = 0; side < 2; side++) {
        PyObject *w = PyTuple_GET_ITEM(pair, side);
        n = side ? n_b : n_a;
        if (!PyTuple_CheckExact(w) || PyTuple_GET_SIZE(w) != n) {
            PyErr_SetString(PyExc_TypeError, "performance weights: one per player");
            return -1;
        }
        for (i = 0; i < n; i++)
            if (as_double(PyTuple_GET_ITEM(w, i), &perf[side ? n_a + i : i]) < 0)
                return -1;
    }
    return 0;
}

/* The same, calling `fn(arg)` for the pair. */
static int
call_performance(PyObject *fn, PyObject *arg, double *perf, Py_ssize_t n_a, Py_ssize_t n_b)
{
    PyObject *pair = PyObject_CallOneArg(fn, arg);
    int rc;
    if (pair == NULL)
        return -1;
    rc = read_performance(pair, perf, n_a, n_b);
    Py_DECREF(pair);
    return rc;
}

#define MAX_PLAYERS (2 * MAX_SIDE)
#define N_MADE 7 /* new floats per player: rating, rd, volatility, E, weight, ratio, perf */

/* One match as the replay rates it, whichever form it came in (MatchResult objects or a
   History's columns): the players (Replay indices, side A's first), the date and the
   outcome, then what step_rate works out. */
typedef struct {
    Py_ssize_t n_a, n_b;
    Py_ssize_t idx[MAX_PLAYERS];
    long long ord;
    double s_a, s_b, mult;
    int a_won;
    /* step_rate: each player's state going in (RD grown for inactivity), window counts
       and new state */
    Contestant who[MAX_PLAYERS];
    Result res[MAX_PLAYERS];
    double weights[MAX_PLAYERS][MAX_SIDE], rd[MAX_PLAYERS], rating[MAX_PLAYERS],
        ratio[MAX_PLAYERS];
    int inflated[MAX_PLAYERS];
    int32_t head[MAX_PLAYERS], len[MAX_PLAYERS]; /* the windows before pruning */
} Step;

/* Put back the windows step_rate pruned. */
static void
step_undo(Replay *self, Step *s)
{
    Py_ssize_t i;
    for (i = s->n_a + s->n_b - 1; i >= 0; i--)
        window_unprune(&self->players[s->idx[i]], s->head[i], s->len[i]);
}

/* Steps 1, 4 and 7 around the kernel (steps 2-9 and §5), for a match whose players are
   distinct, loaded and have room in their windows: every player's new state in s->res.
   `perf`: the performance weights (performance_weighted with stats), else NULL. With
   `prob`, side A's §6 win probability before the match, as Replayer.predict gives it.
   The windows are pruned to the match date; nothing else changes until step_commit.
   ERROR with EngineError set (and the windows put back) when the update cannot finish. */
static int
step_rate(Replay *self, Step *s, const double *perf, double *prob)
{
    Py_ssize_t n_a = s->n_a, n_b = s->n_b, i, j, n = 0;
    long long ord = s->ord;
    int glicko1 = self->rules.method == GLICKO1_TEAM, rc;
    const Maths *m = &self->rules.maths;

    /* Steps 4 and 7 (the window: repetition weights, diversity gate), and step 1
       (inactivity, glicko2.inflate). */
    for (i = 0; i < n_a + n_b; i++) {
        Player *p = &self->players[s->idx[i]];
        Py_ssize_t first = i < n_a ? n_a : 0, n_opp = i < n_a ? n_b : n_a;
        int32_t distinct;
        s->head[i] = p->head;
        s->len[i] = p->len;
        n = i + 1;
        window_prune(p, ord, self->lookback);
        distinct = p->distinct;
        for (j = 0; j < n_opp; j++) {
            int32_t k = count_get(p, s->idx[first + j]);
            s->weights[i][j] = glicko1 ? 1.0 : 1.0 / (1.0 + self->alpha * (double)k);
            distinct += k == 0;
        }
        s->ratio[i] = (double)distinct / (double)(p->len + n_opp);
        s->rd[i] = p->rd;
        s->inflated[i] = 0;
        {
            long long periods = idle_periods(p->last, ord, self->period, self->starts,
                                             self->n_starts, self->per_start);
            if (periods > 0) {
                double grown;
                if (inflate(p->rd / m->scale, p->vol, periods, self->phi_max, &grown)) {
                    rc = ERR_MATH;
                    goto fail;
                }
                s->rd[i] = m->scale * grown;
                s->inflated[i] = 1;
            }
        }
        s->rating[i] = p->rating;
        s->who[i].rating = p->rating;
        s->who[i].rd = s->rd[i];
        s->who[i].vol = p->vol;
        s->who[i].weights = s->weights[i];
        s->who[i].gate = glicko1 || s->ratio[i] >= self->threshold;
        s->who[i].perf = perf != NULL ? perf[i] : 1.0;
    }
    if (prob != NULL && win_probability(m, s->rating, s->rd, n_a, n_b, prob)) {
        rc = ERR_MATH;
        goto fail;
    }
    if ((rc = rate_match(&self->rules, s->who, n_a, s->who + n_a, n_b, s->s_a, s->s_b, s->mult,
                         s->a_won, s->res, s->res + n_a)) == 0)
        return RATED;
fail:
    raise_failure(rc, m);
    for (i = n - 1; i >= 0; i--)
        window_unprune(&self->players[s->idx[i]], s->head[i], s->len[i]);
    return ERROR;
}

/* Apply a rated match: the players' new states and this match in their windows (room was
   reserved). The caller has marked the players dirty and dealt with their objects. */
static void
step_commit(Replay *self, Step *s)
{
    Py_ssize_t i, j, n_a = s->n_a, n_b = s->n_b;
    for (i = 0; i < n_a + n_b; i++) {
        Player *p = &self->players[s->idx[i]];
        Py_ssize_t first = i < n_a ? n_a : 0, n_opp = i < n_a ? n_b : n_a;
        p->rating = s->res[i].rating;
        p->rd = s->res[i].rd;
        p->vol = s->res[i].vol;
        p->matches++;
        p->last = s->ord;
        for (j = 0; j < n_opp; j++)
            window_push(p, (int32_t)s->ord, s->idx[first + j], j > 0);
    }
    self->last_ordinal = s->ord;
}

/* Players s->idx[0..n_a+n_b) known by index: no one twice (STOP: Python raises), each
   loaded, with room for this match's window entries. RATED, STOP or ERROR. */
static int
step_players(Replay *self, Step *s)
{
    Py_ssize_t i, j, n = s->n_a + s->n_b;
    int rc;
    for (i = 1; i < n; i++)
        for (j = 0; j < i; j++)
            if (s->idx[j] == s->idx[i])
                return STOP;
    for (i = 0; i < n; i++)
        if (self->players[s->idx[i]].obj == NULL && (rc = load_player(self, s->idx[i])) != RATED)
            return rc;
    for (i = 0; i < n; i++)
        if (window_reserve(&self->players[s->idx[i]], (int32_t)(i < s->n_a ? s->n_b : s->n_a)) < 0)
            return ERROR;
    return RATED;
}

/* A player's state as Python objects (PlayerChange's "before" fields share them); the
   columnar run leaves them NULL. */
static int
player_objects(Player *p)
{
    if (p->rating_obj == NULL && (p->rating_obj = PyFloat_FromDouble(p->rating)) == NULL)
        return -1;
    if (p->rd_obj == NULL && (p->rd_obj = PyFloat_FromDouble(p->rd)) == NULL)
        return -1;
    if (p->vol_obj == NULL && (p->vol_obj = PyFloat_FromDouble(p->vol)) == NULL)
        return -1;
    return 0;
}

/* The last rated match's id, kept as an object (export) and as a C integer when it is one. */
static void
set_last_id(Replay *self, PyObject *id)
{
    int overflow = 0;
    Py_SETREF(self->last_id, Py_NewRef(id));
    if (id == Py_None) {
        self->last_kind = LAST_NONE;
        return;
    }
    self->last_kind = LAST_OTHER;
    if (PyLong_CheckExact(id)) {
        self->last_id_ll = PyLong_AsLongLongAndOverflow(id, &overflow);
        if (!overflow && !(self->last_id_ll == -1 && PyErr_Occurred()))
            self->last_kind = LAST_INT;
        PyErr_Clear();
    }
}

/* One MatchResult (Replayer.rate): its tuple of PlayerChange appended to `out`. */
static int
rate_one(Replay *self, PyObject *match, PyObject *out, PyObject *probs, Py_ssize_t hint_a,
         Py_ssize_t hint_b, PyObject *hint_name_a, PyObject *hint_name_b)
{
    PyObject *f[N_MATCH_FIELDS] = {NULL};
    PyObject *s_obj = NULL, *made[MAX_PLAYERS][N_MADE], *changes = NULL, *prob = NULL;
    PyObject *names[MAX_PLAYERS], *m_obj, *won_obj, *s_b_obj;
    Py_ssize_t n_a, n_b, i, j;
    double perf[MAX_PLAYERS], p_win;
    int rc = STOP, tracked = 0, n_made = 0, has_perf = 0, stepped = 0;
    Step s;

    for (i = 0; i < N_MATCH_FIELDS; i++) {
        if ((f[i] = match_field(&self->reader, match, i)) == NULL) {
            rc = stop_or_fail();
            goto done;
        }
    }
    /* §3 order: by date, then id within a day (Replayer._check_order raises otherwise). */
    if (!(PyDate_CheckExact(f[M_PLAYED_ON]) || PyDateTime_CheckExact(f[M_PLAYED_ON])))
        goto done;
    s.ord = date_ordinal(f[M_PLAYED_ON]);
    if (s.ord <= self->last_ordinal) {
        if (s.ord < self->last_ordinal)
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
    /* Sides given as tuples of at most MAX_SIDE names; anything else is Python's. */
    s.n_a = n_a = side_size(f[M_SIDE_A]);
    s.n_b = n_b = side_size(f[M_SIDE_B]);
    if (n_a == 0 || n_b == 0)
        goto done;
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
    s.s_a = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(s_obj, 0));
    s.s_b = PyFloat_AS_DOUBLE(s_b_obj);
    s.mult = PyFloat_AS_DOUBLE(m_obj);
    s.a_won = won_obj == Py_True;

    /* The players' indices (singles: looked up ahead for this very name object). */
    for (i = 0; i < n_a + n_b; i++) {
        PyObject *name = i < n_a ? PyTuple_GET_ITEM(f[M_SIDE_A], i)
                                 : PyTuple_GET_ITEM(f[M_SIDE_B], i - n_a);
        names[i] = name;
        if (n_a == 1 && n_b == 1 && i == 0 && hint_a >= 0 && hint_name_a == name)
            s.idx[i] = hint_a;
        else if (n_a == 1 && n_b == 1 && i == 1 && hint_b >= 0 && hint_name_b == name)
            s.idx[i] = hint_b;
        else
            s.idx[i] = intern_name(self, name);
        if (s.idx[i] < 0) {
            rc = stop_or_fail();
            goto done;
        }
    }
    if ((rc = step_players(self, &s)) != RATED)
        goto done;
    /* performance_weighted: the players' weights from the match's stats (§5). */
    if (self->rules.method == PERFORMANCE_WEIGHTED && f[M_STATS] != Py_None) {
        if (call_performance(self->perf_fn, match, perf, n_a, n_b) < 0) {
            rc = ERROR;
            goto done;
        }
        has_perf = 1;
    }
    rc = ERROR;
    if (step_rate(self, &s, has_perf ? perf : NULL, probs != NULL ? &p_win : NULL) != RATED)
        goto done;
    stepped = 1;
    if (probs != NULL && (prob = PyFloat_FromDouble(p_win)) == NULL)
        goto done;

    /* The PlayerChange of every player, built before anything is committed. */
    n_made = (int)(n_a + n_b);
    memset(made, 0, (size_t)n_made * sizeof(made[0]));
    if ((changes = PyTuple_New(n_a + n_b)) == NULL)
        goto done;
    for (i = 0; i < n_a + n_b; i++) {
        Player *p = &self->players[s.idx[i]];
        const Result *r = &s.res[i];
        PyObject *rd_before, *change;
        int on_a = i < n_a;
        if (player_objects(p) < 0)
            goto done;
        if ((made[i][0] = PyFloat_FromDouble(r->rating)) == NULL ||
            (made[i][1] = PyFloat_FromDouble(r->rd)) == NULL ||
            (made[i][2] = r->vol == p->vol ? Py_NewRef(p->vol_obj)
                                           : PyFloat_FromDouble(r->vol)) == NULL ||
            (made[i][3] = PyFloat_FromDouble(r->expected)) == NULL ||
            (made[i][4] = r->weight == 1.0 ? Py_NewRef(self->one)
                                           : PyFloat_FromDouble(r->weight)) == NULL ||
            (made[i][5] = s.ratio[i] == 1.0 ? Py_NewRef(self->one)
                                            : PyFloat_FromDouble(s.ratio[i])) == NULL ||
            (made[i][6] = r->perf == 1.0 ? Py_NewRef(self->one)
                                         : PyFloat_FromDouble(r->perf)) == NULL)
            goto done;
        rd_before = s.inflated[i] ? PyFloat_FromDouble(s.rd[i]) : Py_NewRef(p->rd_obj);
        if (rd_before == NULL)
            goto done;
        {
            PyObject *values[N_CHANGE_FIELDS] = {
                names[i],   p->rating_obj, rd_before,
                p->vol_obj, made[i][0],    made[i][1],
                made[i][2], made[i][3],    on_a ? PyTuple_GET_ITEM(s_obj, 0) : s_b_obj,
                made[i][4], made[i][5],    s.who[i].gate ? Py_True : Py_False,
                made[i][6], (on_a ? s.a_won : !s.a_won) ? Py_True : Py_False,
                m_obj,      r->floored ? Py_True : Py_False};
            change = make_change(self, values);
        }
        Py_DECREF(rd_before);
        if (change == NULL)
            goto done;
        tracked |= PyObject_GC_IsTracked(change);
        PyTuple_SET_ITEM(changes, i, change);
    }
    for (i = 0; i < n_a + n_b; i++)
        if (mark_dirty(self, s.idx[i]) < 0)
            goto done;
    /* CPython untracks a tuple only when no item is a GC type; these items are, but
       untracked ones (make_change): without this every tuple would stay tracked and
       make full collections walk the whole result. */
    if (!tracked)
        PyObject_GC_UnTrack(changes);
    if ((prob != NULL && PyList_Append(probs, prob) < 0) || PyList_Append(out, changes) < 0)
        goto done;

    /* Commit. */
    for (i = 0; i < n_a + n_b; i++) {
        Player *p = &self->players[s.idx[i]];
        Py_SETREF(p->rating_obj, made[i][0]);
        Py_SETREF(p->rd_obj, made[i][1]);
        Py_SETREF(p->vol_obj, made[i][2]);
        made[i][0] = made[i][1] = made[i][2] = NULL;
    }
    step_commit(self, &s);
    set_last_id(self, f[M_ID]);
    rc = RATED;
    stepped = 0;

done:
    if (stepped)
        step_undo(self, &s);
    for (i = 0; i < N_MATCH_FIELDS; i++)
        Py_XDECREF(f[i]);
    for (i = 0; i < n_made; i++)
        for (j = 0; j < N_MADE; j++)
            Py_XDECREF(made[i][j]);
    Py_XDECREF(s_obj);
    Py_XDECREF(changes);
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

/* The reader of `match` (MatchResult) objects whose fields are named `fields`. */
static int
reader_init(MatchReader *r, PyObject *match, PyObject *fields)
{
    int i;
    if (!PyTuple_Check(fields) || PyTuple_GET_SIZE(fields) != N_MATCH_FIELDS) {
        PyErr_SetString(PyExc_ValueError,
                        "match_fields: played_on, side_a, side_b, games, id, stats");
        return -1;
    }
    for (i = 0; i < N_MATCH_FIELDS; i++) {
        PyObject *name = PyTuple_GET_ITEM(fields, i);
        if (!PyUnicode_Check(name)) {
            PyErr_SetString(PyExc_TypeError, "match_fields must be names");
            return -1;
        }
        Py_XSETREF(r->names[i], Py_NewRef(name));
    }
    r->rows = match == (PyObject *)&PyTuple_Type;
    r->fast = !r->rows && member_offsets(match, fields, N_MATCH_FIELDS, r->offsets);
    Py_XSETREF(r->type, Py_NewRef(match));
    return 0;
}

static void
reader_clear(MatchReader *r)
{
    int i;
    Py_CLEAR(r->type);
    for (i = 0; i < N_MATCH_FIELDS; i++)
        Py_CLEAR(r->names[i]);
}

static int
Replay_init(Replay *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"constants", "player", "outcomes", "outcome", "performance",
                             "change", "change_fields", "fast_change", "match", "match_fields",
                             "deque", "last", NULL};
    PyObject *constants, *player, *outcomes, *outcome, *performance, *change, *change_fields, *match,
        *match_fields, *deque, *last_id, *rules, *starts;
    int fast_change;
    long long last_ordinal;

    if (self->index != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Replay objects cannot be re-initialised");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(
            args, kwargs, "O!OO!OOOOpOO!O(LO)", kwlist, &PyTuple_Type, &constants, &player,
            &PyDict_Type, &outcomes, &outcome, &performance, &change, &change_fields, &fast_change,
            &match,
            &PyTuple_Type, &match_fields, &deque, &last_ordinal, &last_id))
        return -1;
    if (!PyArg_ParseTuple(constants, "LddLdOLO;constants", &self->lookback, &self->alpha,
                          &self->threshold, &self->period, &self->phi_max, &rules,
                          &self->per_start, &starts) ||
        parse_rules(rules, &self->rules) < 0)
        return -1;
    if (self->period < 1) {
        PyErr_SetString(PyExc_ValueError, "rating_period_days must be 1 or more");
        return -1;
    }
    if (self->per_start < 0 || self->per_start > MAX_PER_START) {
        PyErr_SetString(PyExc_ValueError, "season_start_periods must be from 0 to "
                        MAX_PER_START_TEXT);
        return -1;
    }
    PyMem_Free(self->starts); /* a failed __init__ before may have left them */
    if (parse_starts(starts, &self->starts, &self->n_starts) < 0)
        return -1;
    if (reader_init(&self->reader, match, match_fields) < 0)
        return -1;
    self->fast_change = fast_change &&
                        member_offsets(change, change_fields, N_CHANGE_FIELDS, self->change_offsets);
    if (self->fast_change && ((PyTypeObject *)change)->tp_itemsize != 0)
        self->fast_change = 0;
    self->player_fn = Py_NewRef(player);
    self->outcomes = Py_NewRef(outcomes);
    self->outcome_fn = Py_NewRef(outcome);
    self->perf_fn = Py_NewRef(performance);
    self->change_type = Py_NewRef(change);
    self->deque_type = Py_NewRef(deque);
    self->last_ordinal = last_ordinal;
    self->last_id = Py_None; /* set_last_id below */
    Py_INCREF(Py_None);
    set_last_id(self, last_id);
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
    Py_VISIT(self->perf_fn);
    Py_VISIT(self->change_type);
    Py_VISIT(self->reader.type);
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
    Py_CLEAR(self->perf_fn);
    Py_CLEAR(self->change_type);
    reader_clear(&self->reader);
    Py_CLEAR(self->deque_type);
    Py_CLEAR(self->last_id);
    Py_CLEAR(self->index);
    Py_CLEAR(self->one);
    for (j = 0; j < 8; j++)
        Py_CLEAR(self->hints[j].match);
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
    PyMem_Free(self->starts);
    self->starts = NULL;
    self->n_starts = 0;
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
    PyObject *v = *(PyObject **)((char *)m + self->reader.offsets[side]);
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
    PyTypeObject *tp = (PyTypeObject *)self->reader.type;
    if (!self->reader.fast)
        return;
    if (i + 7 < n) {
        PREFETCH(items[i + 7]);
        PREFETCH((char *)items[i + 7] + 64);
    }
    if (i + 5 < n && Py_TYPE(m = items[i + 5]) == tp) {
        int k;
        for (k = 0; k < N_MATCH_FIELDS; k++)
            if ((v = *(PyObject **)((char *)m + self->reader.offsets[k])) != NULL)
                PREFETCH(v);
    }
    if (i + 3 < n && Py_TYPE(m = items[i + 3]) == tp) {
        if ((v = single_name(self, m, M_SIDE_A)) != NULL)
            PREFETCH(v);
        if ((v = single_name(self, m, M_SIDE_B)) != NULL)
            PREFETCH(v);
        v = *(PyObject **)((char *)m + self->reader.offsets[M_GAMES]);
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
    int rc = RATED, gc_was_on;
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
    /* Every object a run builds is untracked or cannot form a cycle (make_change), but each
       PlayerChange still counts as a GC allocation: with the collector on, a million-match
       run would walk every tracked object of the process (the history's Match objects
       included) over and over. */
    gc_was_on = PyGC_Disable();
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
    if (gc_was_on)
        PyGC_Enable();
    self->busy = 0;
    clear_hints(self);
    Py_DECREF(matches);
    if (rc == ERROR)
        return NULL;
    return PyLong_FromSsize_t(i);
}

/* What export() shares between players: the day ordinals of the lookback window as
   objects, and each player as a lone opponent `(name,)` (singles windows). */
typedef struct {
    PyObject **ords;
    long long base;
    Py_ssize_t n_ords;
    PyObject **solo;
    Py_ssize_t n_solo;
} Shared;

static void
shared_free(Shared *c)
{
    Py_ssize_t k;
    for (k = 0; k < c->n_ords; k++)
        Py_XDECREF(c->ords[k]);
    for (k = 0; k < c->n_solo; k++)
        Py_XDECREF(c->solo[k]);
    PyMem_Free(c->ords);
    PyMem_Free(c->solo);
}

static PyObject *
shared_ordinal(Shared *c, long long ord)
{
    PyObject **slot;
    if (ord < c->base || ord >= c->base + c->n_ords)
        return PyLong_FromLongLong(ord);
    slot = &c->ords[ord - c->base];
    if (*slot == NULL && (*slot = PyLong_FromLongLong(ord)) == NULL)
        return NULL;
    return Py_NewRef(*slot);
}

/* (ordinal, opponents) entries of a player's window, regrouping team entries. */
static PyObject *
window_entries(Replay *self, Player *p, Shared *c)
{
    PyObject *entries = PyList_New(p->len);
    int32_t i = 0, n_entries = 0;
    if (entries == NULL)
        return NULL;
    while (i < p->len) {
        int32_t j = i + 1, n, k;
        PyObject *opps, *ord, *entry;
        Entry *e0 = &p->win[(p->head + i) & (p->cap - 1)];
        while (j < p->len && p->win[(p->head + j) & (p->cap - 1)].cont)
            j++;
        n = j - i;
        if (n == 1 && c->solo != NULL) {
            PyObject **slot = &c->solo[e0->opp];
            if (*slot == NULL && (*slot = PyTuple_Pack(1, self->names[e0->opp])) == NULL)
                goto fail;
            opps = Py_NewRef(*slot);
        }
        else {
            if ((opps = PyTuple_New(n)) == NULL)
                goto fail;
            for (k = 0; k < n; k++) {
                Entry *e = &p->win[(p->head + i + k) & (p->cap - 1)];
                PyTuple_SET_ITEM(opps, k, Py_NewRef(self->names[e->opp]));
            }
        }
        if ((ord = shared_ordinal(c, e0->ord)) == NULL) {
            Py_DECREF(opps);
            goto fail;
        }
        if ((entry = PyTuple_New(2)) == NULL) {
            Py_DECREF(ord);
            Py_DECREF(opps);
            goto fail;
        }
        PyTuple_SET_ITEM(entry, 0, ord);
        PyTuple_SET_ITEM(entry, 1, opps);
        PyList_SET_ITEM(entries, n_entries++, entry);
        i = j;
    }
    /* team entries take several window slots: drop the room they did not fill */
    if (PyList_SetSlice(entries, n_entries, p->len, NULL) < 0)
        goto fail;
    return entries;
fail:
    /* unfilled items are NULL, which list dealloc skips */
    Py_DECREF(entries);
    return NULL;
}

static int
export_player(Replay *self, Player *p, Shared *c)
{
    PyObject *value = NULL, *entries = NULL, *counts = NULL;
    int32_t i;
    int rc = -1;

    if (player_objects(p) < 0 || PyObject_SetAttr(p->obj, str_rating, p->rating_obj) < 0 ||
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
    if ((entries = window_entries(self, p, c)) == NULL)
        goto done;
    if ((value = PyObject_CallOneArg(self->deque_type, entries)) == NULL ||
        PyObject_SetAttr(p->obj, str_recent, value) < 0)
        goto done;
    Py_CLEAR(value);
    /* opponent -> matches against them inside the window: the counts table as it is */
    if ((counts = PyDict_New()) == NULL)
        goto done;
    for (i = 0; i < p->counts_cap; i++) {
        PyObject *now;
        if (p->counts[i].opp == -1)
            continue;
        if ((now = PyLong_FromLong(p->counts[i].count)) == NULL)
            goto done;
        if (PyDict_SetItem(counts, self->names[p->counts[i].opp], now) < 0) {
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
    Shared c = {NULL, 0, 0, NULL, 0};
    if (check_ready(self) < 0)
        return NULL;
    if (self->n_dirty) {
        /* the ordinals of the window's days (older entries wait to be pruned) */
        c.n_ords = (Py_ssize_t)(self->lookback < 4096 ? self->lookback + 1 : 4096);
        c.base = self->last_ordinal - c.n_ords + 1;
        c.ords = PyMem_Calloc((size_t)c.n_ords, sizeof(PyObject *));
        c.n_solo = self->n_players;
        c.solo = PyMem_Calloc((size_t)c.n_solo + 1, sizeof(PyObject *));
        if (c.ords == NULL || c.solo == NULL) {
            shared_free(&c);
            return PyErr_NoMemory();
        }
    }
    while (self->n_dirty) {
        Player *p = &self->players[self->dirty[self->n_dirty - 1]];
        if (p->dirty && p->obj != NULL && export_player(self, p, &c) < 0) {
            shared_free(&c);
            return NULL;
        }
        p->dirty = 0;
        self->n_dirty--;
    }
    shared_free(&c);
    return Py_BuildValue("(LO)", self->last_ordinal, self->last_id);
}

/* -------------------------------------------------------------------------- */
/* A history in columns, and the changes of a columnar run                      */

/* `History`: matches encoded once (encode in replay.py) for replays that read no Python
   object per match: a day ordinal, an id, side sizes, player numbers into `names` and a
   score-line number into `lines` per match. Nothing of the rules is checked here but the
   form (a date, sides as tuples, games hashable, an id that fits in 64 bits): the order,
   the players and the score line are the replay's to judge, at the match, as rate_all
   does. */

#define NO_ID INT64_MIN /* a match without id */
#define MAX_ENCODED_SIDE 255

/* Numbers of equal objects (names, score lines): a hash table of (hash, key, number) in
   plain arrays, which a dict of numbers would read through one more object per lookup.
   The keys are the list's items (it holds the references). */
typedef struct {
    Py_hash_t *hashes;
    PyObject **keys; /* NULL: empty */
    int32_t *numbers;
    Py_ssize_t cap, used; /* cap: a power of two, at most half full */
} Intern;

static void
intern_free(Intern *t)
{
    PyMem_Free(t->hashes);
    PyMem_Free(t->keys);
    PyMem_Free(t->numbers);
    t->hashes = NULL;
    t->keys = NULL;
    t->numbers = NULL;
    t->cap = t->used = 0;
}

static int
intern_grow(Intern *t)
{
    Intern old = *t;
    Py_ssize_t cap = old.cap ? old.cap * 2 : 1024, i;
    t->hashes = PyMem_Malloc((size_t)cap * sizeof(Py_hash_t));
    t->keys = PyMem_Calloc((size_t)cap, sizeof(PyObject *));
    t->numbers = PyMem_Malloc((size_t)cap * sizeof(int32_t));
    if (t->hashes == NULL || t->keys == NULL || t->numbers == NULL) {
        PyMem_Free(t->hashes);
        PyMem_Free(t->keys);
        PyMem_Free(t->numbers);
        *t = old;
        PyErr_NoMemory();
        return -1;
    }
    t->cap = cap;
    for (i = 0; i < old.cap; i++)
        if (old.keys[i] != NULL) {
            size_t j = (size_t)old.hashes[i] & (size_t)(cap - 1);
            while (t->keys[j] != NULL)
                j = (j + 1) & (size_t)(cap - 1);
            t->hashes[j] = old.hashes[i];
            t->keys[j] = old.keys[i];
            t->numbers[j] = old.numbers[i];
        }
    intern_free(&old);
    return 0;
}

typedef struct {
    PyObject_HEAD
    MatchReader reader;
    PyObject *names;      /* list: number -> player name */
    Intern name_index;    /* name -> number */
    PyObject *lines;      /* list: number -> games (the first equal tuple met) */
    Intern line_index;    /* games -> number */
    PyObject *stats;      /* dict: match index -> stats, for the matches that have them */
    Py_ssize_t n, cap;
    int32_t *ord, *line;
    int64_t *id, *first; /* first: the match's players start at players[first[i]] */
    uint8_t *n_a, *n_b;
    int32_t *players;
    Py_ssize_t n_players, cap_players;
} History;

static PyTypeObject HistoryType;

static int
grow(void **buf, Py_ssize_t *cap, Py_ssize_t need, size_t item)
{
    void *fresh;
    Py_ssize_t c = *cap ? *cap : 1024;
    if (need <= *cap)
        return 0;
    while (c < need)
        c *= 2;
    if ((fresh = PyMem_Realloc(*buf, (size_t)c * item)) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *buf = fresh;
    *cap = c;
    return 0;
}

static int
history_reserve(History *h, Py_ssize_t players)
{
    Py_ssize_t cap = h->cap;
    if (h->n + 1 > h->cap) {
        Py_ssize_t c;
#define GROW(field)                                                                         \
    c = cap;                                                                                \
    if (grow((void **)&h->field, &c, h->n + 1, sizeof(*h->field)) < 0)                     \
        return -1;
        GROW(ord) GROW(line) GROW(id) GROW(first) GROW(n_a) GROW(n_b)
#undef GROW
        h->cap = c;
    }
    return grow((void **)&h->players, &h->cap_players, h->n_players + players, sizeof(int32_t));
}

/* The number of `key` in `index`/`list` (equal keys share one, as in a dict), adding it;
   -1 with an exception (unhashable, or an == that raised). */
static Py_ssize_t
intern_in(Intern *index, PyObject *list, PyObject *key)
{
    Py_hash_t hash = PyObject_Hash(key);
    size_t j, mask;
    Py_ssize_t k;
    if (hash == -1)
        return -1;
    if ((index->used + 1) * 2 > index->cap && intern_grow(index) < 0)
        return -1;
    mask = (size_t)(index->cap - 1);
    for (j = (size_t)hash & mask; index->keys[j] != NULL; j = (j + 1) & mask) {
        if (index->keys[j] == key)
            return index->numbers[j];
        if (index->hashes[j] == hash) {
            int same = PyObject_RichCompareBool(index->keys[j], key, Py_EQ);
            if (same < 0)
                return -1;
            if (same)
                return index->numbers[j];
        }
    }
    k = PyList_GET_SIZE(list);
    if (k >= INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "too many names or score lines");
        return -1;
    }
    if (PyList_Append(list, key) < 0)
        return -1;
    index->hashes[j] = hash;
    index->keys[j] = key; /* the list holds it */
    index->numbers[j] = (int32_t)k;
    index->used++;
    return k;
}

/* Append one match; 0, STOP (not in plain form: nothing appended) or ERROR. */
static int
history_append(History *h, PyObject *match)
{
    PyObject *f[N_MATCH_FIELDS] = {NULL};
    Py_ssize_t n_a, n_b, i, k;
    int32_t players[2 * MAX_ENCODED_SIDE];
    long long id = NO_ID;
    int rc = STOP;
    for (i = 0; i < N_MATCH_FIELDS; i++)
        if ((f[i] = match_field(&h->reader, match, i)) == NULL) {
            rc = stop_or_fail();
            goto done;
        }
    if (!(PyDate_CheckExact(f[M_PLAYED_ON]) || PyDateTime_CheckExact(f[M_PLAYED_ON])) ||
        !PyTuple_CheckExact(f[M_SIDE_A]) || !PyTuple_CheckExact(f[M_SIDE_B]))
        goto done;
    n_a = PyTuple_GET_SIZE(f[M_SIDE_A]);
    n_b = PyTuple_GET_SIZE(f[M_SIDE_B]);
    if (n_a > MAX_ENCODED_SIDE || n_b > MAX_ENCODED_SIDE)
        goto done;
    if (f[M_ID] != Py_None) {
        int overflow = 0;
        if (!PyLong_CheckExact(f[M_ID]))
            goto done;
        id = PyLong_AsLongLongAndOverflow(f[M_ID], &overflow);
        if (overflow || id == NO_ID)
            goto done;
        if (id == -1 && PyErr_Occurred()) {
            rc = stop_or_fail();
            goto done;
        }
    }
    if (!PyTuple_CheckExact(f[M_GAMES]))
        goto done;
    for (i = 0; i < n_a + n_b; i++) {
        PyObject *name = i < n_a ? PyTuple_GET_ITEM(f[M_SIDE_A], i)
                                 : PyTuple_GET_ITEM(f[M_SIDE_B], i - n_a);
        if ((k = intern_in(&h->name_index, h->names, name)) < 0) {
            rc = stop_or_fail();
            goto done;
        }
        players[i] = (int32_t)k;
    }
    if ((k = intern_in(&h->line_index, h->lines, f[M_GAMES])) < 0) {
        rc = stop_or_fail(); /* games holding lists: Python makes them tuples */
        goto done;
    }
    rc = ERROR;
    if (history_reserve(h, n_a + n_b) < 0)
        goto done;
    if (f[M_STATS] != Py_None) {
        PyObject *key = PyLong_FromSsize_t(h->n);
        int failed = key == NULL || PyDict_SetItem(h->stats, key, f[M_STATS]) < 0;
        Py_XDECREF(key);
        if (failed)
            goto done;
    }
    h->ord[h->n] = (int32_t)date_ordinal(f[M_PLAYED_ON]);
    h->line[h->n] = (int32_t)k;
    h->id[h->n] = id;
    h->first[h->n] = h->n_players;
    h->n_a[h->n] = (uint8_t)n_a;
    h->n_b[h->n] = (uint8_t)n_b;
    memcpy(h->players + h->n_players, players, (size_t)(n_a + n_b) * sizeof(int32_t));
    h->n_players += n_a + n_b;
    h->n++;
    rc = 0;
done:
    for (i = 0; i < N_MATCH_FIELDS; i++)
        Py_XDECREF(f[i]);
    return rc;
}

static int
History_init(History *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"match", "match_fields", NULL};
    PyObject *match, *fields;
    if (self->names != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "History objects cannot be re-initialised");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "$OO!", kwlist, &match, &PyTuple_Type, &fields) ||
        reader_init(&self->reader, match, fields) < 0)
        return -1;
    if ((self->names = PyList_New(0)) == NULL || (self->lines = PyList_New(0)) == NULL ||
        (self->stats = PyDict_New()) == NULL)
        return -1;
    return 0;
}

static int
History_traverse(History *self, visitproc visit, void *arg)
{
    Py_VISIT(self->reader.type);
    Py_VISIT(self->names);
    Py_VISIT(self->lines);
    Py_VISIT(self->stats);
    return 0;
}

static int
History_clear(History *self)
{
    reader_clear(&self->reader);
    /* the tables borrow the lists' references: emptied with them */
    intern_free(&self->name_index);
    intern_free(&self->line_index);
    Py_CLEAR(self->names);
    Py_CLEAR(self->lines);
    Py_CLEAR(self->stats);
    return 0;
}

static void
History_dealloc(History *self)
{
    PyObject_GC_UnTrack(self);
    History_clear(self);
    PyMem_Free(self->ord);
    PyMem_Free(self->line);
    PyMem_Free(self->id);
    PyMem_Free(self->first);
    PyMem_Free(self->n_a);
    PyMem_Free(self->n_b);
    PyMem_Free(self->players);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
history_ready(History *h)
{
    if (h->names == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "History is not initialised");
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(History_extend_doc,
             "extend(matches, start=0) -> stop\n\n"
             "Append matches[start:] (a list or tuple of MatchResult); returns the index of the\n"
             "first match not in plain form (a date, sides as tuples, games a tuple of tuples,\n"
             "an integer or no id), which is not appended, or len(matches).");

/* Encoding reads a few objects per match scattered over the heap: ask for them ahead,
   one level deeper at each step (the match; its fields; the names and games). */
static inline void
encode_ahead(History *h, PyObject **items, Py_ssize_t i, Py_ssize_t n)
{
    PyTypeObject *tp = (PyTypeObject *)h->reader.type;
    PyObject *m, *v;
    int k;
    if (!h->reader.fast)
        return;
    if (i + 8 < n) {
        PREFETCH(items[i + 8]);
        PREFETCH((char *)items[i + 8] + 64);
    }
    if (i + 4 < n && Py_TYPE(m = items[i + 4]) == tp)
        for (k = 0; k < M_STATS; k++)
            if ((v = *(PyObject **)((char *)m + h->reader.offsets[k])) != NULL)
                PREFETCH(v);
    if (i + 2 < n && Py_TYPE(m = items[i + 2]) == tp)
        for (k = M_SIDE_A; k <= M_GAMES; k++) {
            v = *(PyObject **)((char *)m + h->reader.offsets[k]);
            if (v != NULL && PyTuple_CheckExact(v)) {
                Py_ssize_t j;
                for (j = 0; j < PyTuple_GET_SIZE(v) && j < 5; j++)
                    PREFETCH(PyTuple_GET_ITEM(v, j));
            }
        }
}

static PyObject *
History_extend(History *self, PyObject *args)
{
    PyObject *matches;
    Py_ssize_t start = 0, i;
    int rc = 0;
    if (!PyArg_ParseTuple(args, "O|n:extend", &matches, &start) || history_ready(self) < 0)
        return NULL;
    if (!PyList_Check(matches) && !PyTuple_Check(matches)) {
        PyErr_SetString(PyExc_TypeError, "matches must be a list or a tuple");
        return NULL;
    }
    Py_INCREF(matches);
    for (i = start < 0 ? 0 : start; i < PySequence_Fast_GET_SIZE(matches); i++) {
        PyObject *m = PySequence_Fast_GET_ITEM(matches, i);
        encode_ahead(self, PySequence_Fast_ITEMS(matches), i, PySequence_Fast_GET_SIZE(matches));
        Py_INCREF(m);
        rc = history_append(self, m);
        Py_DECREF(m);
        if (rc != 0)
            break;
    }
    Py_DECREF(matches);
    if (rc == ERROR)
        return NULL;
    return PyLong_FromSsize_t(i);
}

PyDoc_STRVAR(History_row_doc,
             "row(i) -> (ordinal, side_a, side_b, games, id)\n\n"
             "Match i as encoded (its stats are in `stats`).");

static PyObject *
History_row(History *self, PyObject *arg)
{
    Py_ssize_t i = PyLong_AsSsize_t(arg), k;
    PyObject *sides[2] = {NULL, NULL}, *id, *out;
    int side;
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (history_ready(self) < 0)
        return NULL;
    if (i < 0)
        i += self->n;
    if (i < 0 || i >= self->n) {
        PyErr_SetString(PyExc_IndexError, "History index out of range");
        return NULL;
    }
    for (side = 0; side < 2; side++) {
        Py_ssize_t n = side ? self->n_b[i] : self->n_a[i];
        const int32_t *who = self->players + self->first[i] + (side ? self->n_a[i] : 0);
        if ((sides[side] = PyTuple_New(n)) == NULL)
            goto fail;
        for (k = 0; k < n; k++)
            PyTuple_SET_ITEM(sides[side], k, Py_NewRef(PyList_GET_ITEM(self->names, who[k])));
    }
    id = self->id[i] == NO_ID ? Py_NewRef(Py_None) : PyLong_FromLongLong(self->id[i]);
    if (id == NULL)
        goto fail;
    out = Py_BuildValue("(iNNON)", self->ord[i], sides[0], sides[1],
                        PyList_GET_ITEM(self->lines, self->line[i]), id);
    return out;
fail:
    Py_XDECREF(sides[0]);
    Py_XDECREF(sides[1]);
    return NULL;
}

static Py_ssize_t
History_len(History *self)
{
    return self->n;
}

/* A copy of `n` items of `size` bytes as a memoryview of format `fmt`. */
static PyObject *
view_of(const void *data, Py_ssize_t n, Py_ssize_t size, const char *fmt)
{
    PyObject *bytes = PyBytes_FromStringAndSize(data, n * size), *view, *out;
    if (bytes == NULL)
        return NULL;
    view = PyMemoryView_FromObject(bytes);
    Py_DECREF(bytes);
    if (view == NULL)
        return NULL;
    out = PyObject_CallMethod(view, "cast", "s", fmt);
    Py_DECREF(view);
    return out;
}

PyDoc_STRVAR(History_column_doc,
             "column(name) -> memoryview\n\n"
             "A copy of one column: 'ordinal' (the day, 'i'), 'line' (the score line's number\n"
             "in `lines`, 'i'), 'id' ('q', the least 64-bit integer for none), 'n_a' and 'n_b'\n"
             "(players a side, 'B'), 'first' (match i's players start at players[first[i]],\n"
             "'q'), 'players' (numbers in `names`, side A's first, 'i').");

static PyObject *
History_column(History *self, PyObject *name)
{
    const char *want = PyUnicode_AsUTF8(name);
    if (want == NULL || history_ready(self) < 0)
        return NULL;
    if (strcmp(want, "ordinal") == 0)
        return view_of(self->ord, self->n, 4, "i");
    if (strcmp(want, "line") == 0)
        return view_of(self->line, self->n, 4, "i");
    if (strcmp(want, "id") == 0)
        return view_of(self->id, self->n, 8, "q");
    if (strcmp(want, "n_a") == 0)
        return view_of(self->n_a, self->n, 1, "B");
    if (strcmp(want, "n_b") == 0)
        return view_of(self->n_b, self->n, 1, "B");
    if (strcmp(want, "first") == 0)
        return view_of(self->first, self->n, 8, "q");
    if (strcmp(want, "players") == 0)
        return view_of(self->players, self->n_players, 4, "i");
    PyErr_Format(PyExc_KeyError, "no column %R", name);
    return NULL;
}

static PyMethodDef History_methods[] = {
    {"extend", (PyCFunction)History_extend, METH_VARARGS, History_extend_doc},
    {"row", (PyCFunction)History_row, METH_O, History_row_doc},
    {"column", (PyCFunction)History_column, METH_O, History_column_doc},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef History_members[] = {
    {"names", T_OBJECT, offsetof(History, names), READONLY, "player names, by number"},
    {"lines", T_OBJECT, offsetof(History, lines), READONLY, "distinct score lines, by number"},
    {"stats", T_OBJECT, offsetof(History, stats), READONLY, "match index -> stats"},
    {NULL, 0, 0, 0, NULL},
};

static PySequenceMethods History_as_sequence = {.sq_length = (lenfunc)History_len};

PyDoc_STRVAR(History_doc, "History(*, match, match_fields): matches in columns (replay.encode).");

static PyTypeObject HistoryType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ratings.engine._native.History",
    .tp_basicsize = sizeof(History),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = History_doc,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)History_init,
    .tp_dealloc = (destructor)History_dealloc,
    .tp_traverse = (traverseproc)History_traverse,
    .tp_clear = (inquiry)History_clear,
    .tp_methods = History_methods,
    .tp_members = History_members,
    .tp_as_sequence = &History_as_sequence,
};

/* `Changes`: what a columnar run did, one row per player and match in plain numbers; a
   sequence of each match's tuple of PlayerChange, built when asked for. A row keeps what
   only it knows: the state before is the player's row before (`prev`), or their state
   when the run met them first (`start`); the outcome and m are the match's score line's. */
#define ROW_GATE 1
#define ROW_WON 2
#define ROW_SIDE_A 4
#define ROW_FLOORED 8

typedef struct {
    double rd_before, rating_after, rd_after, vol_after, expected, weight, ratio, perf;
    int32_t player; /* the history's number */
    int32_t prev;   /* this player's row before; -1 - k: start[k] */
    uint8_t flags;
} Row;

typedef struct {
    double rating, vol;
} Start;

/* columns of doubles read straight from a row */
static const struct {
    const char *name;
    size_t offset;
} row_doubles[] = {
    {"rd_before", offsetof(Row, rd_before)},
    {"rating_after", offsetof(Row, rating_after)},
    {"rd_after", offsetof(Row, rd_after)},
    {"volatility_after", offsetof(Row, vol_after)},
    {"expected", offsetof(Row, expected)},
    {"repetition_weight", offsetof(Row, weight)},
    {"diversity_ratio", offsetof(Row, ratio)},
    {"performance_weight", offsetof(Row, perf)},
    {NULL, 0},
};

typedef struct {
    PyObject_HEAD
    PyObject *names;    /* the history's */
    PyObject *outcomes; /* (s_a, s_b, m, a_won) per score line, as the run had them */
    PyObject *change_type;
    Py_ssize_t change_offsets[N_CHANGE_FIELDS];
    int fast_change;
    Py_ssize_t n, cap;  /* matches */
    int64_t *first;     /* match i's rows: first[i] .. first[i + 1] */
    int32_t *line;      /* match i's score line */
    Row *rows;
    Py_ssize_t n_rows, cap_rows;
    Start *start;
    Py_ssize_t n_start, cap_start;
} Changes;

/* A run of a million matches writes ~160 MB of rows into fresh memory. Fault its pages
   in with one call where Linux can (5.14+): a page fault each costs more than the
   zeroing of the page (a fifth of the run on this machine's virtual CPUs). */
static void
prefault(void *buf, size_t from, size_t to)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)buf + from, end = (uintptr_t)buf + to;
    if (page <= 0 || to - from < ((size_t)1 << 20))
        return;
    start = (start + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    end &= ~((uintptr_t)page - 1);
    if (end > start)
        (void)madvise((void *)start, end - start, MADV_POPULATE_WRITE); /* a hint */
#else
    (void)buf;
    (void)from;
    (void)to;
#endif
}

/* Room for `rows` more rows (as many start states) and `matches` more matches. */
static int
changes_reserve(Changes *c, Py_ssize_t rows, Py_ssize_t matches)
{
    Py_ssize_t cap = c->cap;
    if (rows > INT32_MAX - c->n_rows) {
        PyErr_SetString(PyExc_OverflowError, "too many changes for one run");
        return -1;
    }
    if (grow((void **)&c->rows, &c->cap_rows, c->n_rows + rows, sizeof(Row)) < 0 ||
        grow((void **)&c->start, &c->cap_start, c->n_start + rows, sizeof(Start)) < 0 ||
        grow((void **)&c->first, &cap, c->n + 1 + matches, sizeof(int64_t)) < 0)
        return -1;
    cap = c->cap;
    if (grow((void **)&c->line, &cap, c->n + 1 + matches, sizeof(int32_t)) < 0)
        return -1;
    c->cap = cap;
    return 0;
}

static int
Changes_init(Changes *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"names", "change", "change_fields", "fast_change", NULL};
    PyObject *names, *change, *fields;
    int fast;
    if (self->names != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Changes objects cannot be re-initialised");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "$O!OO!p", kwlist, &PyList_Type, &names,
                                     &change, &PyTuple_Type, &fields, &fast))
        return -1;
    self->fast_change = fast && member_offsets(change, fields, N_CHANGE_FIELDS,
                                               self->change_offsets) &&
                        ((PyTypeObject *)change)->tp_itemsize == 0;
    if (changes_reserve(self, 0, 0) < 0)
        return -1;
    self->first[0] = 0;
    self->change_type = Py_NewRef(change);
    self->names = Py_NewRef(names);
    return 0;
}

static int
Changes_traverse(Changes *self, visitproc visit, void *arg)
{
    Py_VISIT(self->names);
    Py_VISIT(self->outcomes);
    Py_VISIT(self->change_type);
    return 0;
}

static int
Changes_clear(Changes *self)
{
    Py_CLEAR(self->names);
    Py_CLEAR(self->outcomes);
    Py_CLEAR(self->change_type);
    return 0;
}

static void
Changes_dealloc(Changes *self)
{
    PyObject_GC_UnTrack(self);
    Changes_clear(self);
    PyMem_Free(self->first);
    PyMem_Free(self->line);
    PyMem_Free(self->rows);
    PyMem_Free(self->start);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t
Changes_len(Changes *self)
{
    return self->n;
}

/* The state before of row `r`: rating and volatility. */
static inline void
row_before(const Changes *c, const Row *r, double *rating, double *vol)
{
    if (r->prev >= 0) {
        *rating = c->rows[r->prev].rating_after;
        *vol = c->rows[r->prev].vol_after;
    }
    else {
        *rating = c->start[-1 - r->prev].rating;
        *vol = c->start[-1 - r->prev].vol;
    }
}

/* (s_a, s_b, m, a_won) of match i's score line. */
static inline const double *
match_outcome_of(const Changes *c, Py_ssize_t i)
{
    return (const double *)PyBytes_AS_STRING(c->outcomes) + 4 * c->line[i];
}

/* A float object for `x`, sharing `one` for 1.0 as the object path does. */
static inline PyObject *
float_of(double x, PyObject *one)
{
    return x == 1.0 ? Py_NewRef(one) : PyFloat_FromDouble(x);
}

static PyObject *
Changes_item(Changes *self, Py_ssize_t i)
{
    PyObject *out, *one;
    Py_ssize_t k, n;
    const double *o;
    if (self->names == NULL || i < 0 || i >= self->n) {
        PyErr_SetString(PyExc_IndexError, "Changes index out of range");
        return NULL;
    }
    n = (Py_ssize_t)(self->first[i + 1] - self->first[i]);
    o = match_outcome_of(self, i);
    if ((out = PyTuple_New(n)) == NULL)
        return NULL;
    if ((one = PyFloat_FromDouble(1.0)) == NULL) {
        Py_DECREF(out);
        return NULL;
    }
    for (k = 0; k < n; k++) {
        const Row *r = &self->rows[self->first[i] + k];
        PyObject *v[N_CHANGE_FIELDS], *change = NULL;
        double rating_before, vol_before;
        int j, ok;
        memset(v, 0, sizeof(v));
        row_before(self, r, &rating_before, &vol_before);
        /* PlayerChange's order: player, rating, rd and volatility before and after,
           expected, outcome, weight, ratio, gate, performance weight, won, m, floored */
        v[0] = Py_NewRef(PyList_GET_ITEM(self->names, r->player));
        ok = (v[1] = PyFloat_FromDouble(rating_before)) != NULL &&
             (v[2] = PyFloat_FromDouble(r->rd_before)) != NULL &&
             (v[3] = PyFloat_FromDouble(vol_before)) != NULL &&
             (v[4] = PyFloat_FromDouble(r->rating_after)) != NULL &&
             (v[5] = PyFloat_FromDouble(r->rd_after)) != NULL &&
             (v[6] = PyFloat_FromDouble(r->vol_after)) != NULL &&
             (v[7] = PyFloat_FromDouble(r->expected)) != NULL &&
             (v[8] = PyFloat_FromDouble(r->flags & ROW_SIDE_A ? o[0] : o[1])) != NULL &&
             (v[9] = float_of(r->weight, one)) != NULL &&
             (v[10] = float_of(r->ratio, one)) != NULL &&
             (v[12] = float_of(r->perf, one)) != NULL &&
             (v[14] = PyFloat_FromDouble(o[2])) != NULL;
        if (ok) {
            v[11] = Py_NewRef(r->flags & ROW_GATE ? Py_True : Py_False);
            v[13] = Py_NewRef(r->flags & ROW_WON ? Py_True : Py_False);
            v[15] = Py_NewRef(r->flags & ROW_FLOORED ? Py_True : Py_False);
            if (self->fast_change) {
                PyTypeObject *tp = (PyTypeObject *)self->change_type;
                int untrack = atomic(v[0]);
                if ((change = tp->tp_alloc(tp, 0)) != NULL) {
                    for (j = 0; j < N_CHANGE_FIELDS; j++) {
                        *(PyObject **)((char *)change + self->change_offsets[j]) = v[j];
                        v[j] = NULL;
                    }
                    if (untrack && PyObject_IS_GC(change))
                        PyObject_GC_UnTrack(change); /* floats, bools and a name only */
                }
            }
            else {
                change = PyObject_Vectorcall(self->change_type, v, N_CHANGE_FIELDS, NULL);
            }
        }
        for (j = 0; j < N_CHANGE_FIELDS; j++)
            Py_XDECREF(v[j]);
        if (change == NULL) {
            Py_DECREF(one);
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, k, change);
    }
    Py_DECREF(one);
    return out;
}

PyDoc_STRVAR(Changes_column_doc,
             "column(name) -> memoryview\n\n"
             "One field of every change, in order (a copy): a float field of PlayerChange ('d'),\n"
             "'player' (the history's player numbers, 'i'), 'gate_open', 'won' or\n"
             "'floor_applied' ('B'), or 'first' (match i's changes start at first[i], 'q', one\n"
             "more than there are matches).");

static PyObject *
Changes_column(Changes *self, PyObject *name)
{
    const char *want = PyUnicode_AsUTF8(name);
    PyObject *bytes;
    Py_ssize_t i, k, col = -1;
    char *buf;
    int kind; /* 0 a row's double, 1 before, 2 outcome, 3 m, 4 player, 5 a flag */
    uint8_t flag = 0;
    double before[2];
    if (want == NULL)
        return NULL;
    if (self->names == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Changes is not initialised");
        return NULL;
    }
    if (strcmp(want, "first") == 0)
        return view_of(self->first, self->n + 1, 8, "q");
    for (k = 0; row_doubles[k].name != NULL; k++)
        if (strcmp(want, row_doubles[k].name) == 0)
            col = k;
    if (col >= 0)
        kind = 0;
    else if (strcmp(want, "rating_before") == 0 || strcmp(want, "volatility_before") == 0)
        kind = 1;
    else if (strcmp(want, "outcome") == 0)
        kind = 2;
    else if (strcmp(want, "margin_multiplier") == 0)
        kind = 3;
    else if (strcmp(want, "player") == 0)
        kind = 4;
    else {
        kind = 5;
        flag = strcmp(want, "gate_open") == 0 ? ROW_GATE
               : strcmp(want, "won") == 0     ? ROW_WON
               : strcmp(want, "floor_applied") == 0 ? ROW_FLOORED
                                                    : 0;
        if (flag == 0) {
            PyErr_Format(PyExc_KeyError, "no column %R", name);
            return NULL;
        }
    }
    bytes = PyBytes_FromStringAndSize(NULL, self->n_rows * (kind == 5 ? 1 : kind == 4 ? 4 : 8));
    if (bytes == NULL)
        return NULL;
    buf = PyBytes_AS_STRING(bytes);
    for (i = 0; i < self->n; i++) {
        const double *o = match_outcome_of(self, i);
        for (k = self->first[i]; k < self->first[i + 1]; k++) {
            const Row *r = &self->rows[k];
            double x = 0.0;
            if (kind == 4) {
                memcpy(buf + 4 * k, &r->player, 4);
                continue;
            }
            if (kind == 5) {
                buf[k] = (char)((r->flags & flag) != 0);
                continue;
            }
            if (kind == 0)
                memcpy(&x, (const char *)r + row_doubles[col].offset, 8);
            else if (kind == 1) {
                row_before(self, r, &before[0], &before[1]);
                x = want[0] == 'r' ? before[0] : before[1];
            }
            else if (kind == 2)
                x = r->flags & ROW_SIDE_A ? o[0] : o[1];
            else
                x = o[2];
            memcpy(buf + 8 * k, &x, 8);
        }
    }
    {
        PyObject *view = PyMemoryView_FromObject(bytes), *out;
        Py_DECREF(bytes);
        if (view == NULL)
            return NULL;
        out = PyObject_CallMethod(view, "cast", "s", kind == 5 ? "B" : kind == 4 ? "i" : "d");
        Py_DECREF(view);
        return out;
    }
}

static PyMethodDef Changes_methods[] = {
    {"column", (PyCFunction)Changes_column, METH_O, Changes_column_doc},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods Changes_as_sequence = {
    .sq_length = (lenfunc)Changes_len,
    .sq_item = (ssizeargfunc)Changes_item,
};

PyDoc_STRVAR(Changes_doc,
             "Changes(*, names, change, change_fields, fast_change): what a columnar run did;\n"
             "changes[i] is match i's tuple of PlayerChange, built when asked for.");

static PyTypeObject ChangesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ratings.engine._native.Changes",
    .tp_basicsize = sizeof(Changes),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = Changes_doc,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Changes_init,
    .tp_dealloc = (destructor)Changes_dealloc,
    .tp_traverse = (traverseproc)Changes_traverse,
    .tp_clear = (inquiry)Changes_clear,
    .tp_methods = Changes_methods,
    .tp_as_sequence = &Changes_as_sequence,
};

/* One match of a History (the columnar Replayer.rate): its rows appended to `out` (room
   reserved). `map`: the history's player numbers -> this Replay's indices (-1: not yet);
   `last_row`: each Replay index's last row in `out` (-1: none yet), for `*n_last` indices;
   grown here when loading players added indices (the opponents in their windows). */
static int
rate_row(Replay *self, History *h, Py_ssize_t i, int32_t *map, int32_t **last_rows,
         Py_ssize_t *n_last,
         const double *outcomes, Changes *out, PyObject *probs, PyObject *perf_fn)
{
    Step s;
    Py_ssize_t k, n;
    double perf[MAX_PLAYERS], p_win;
    const double *o;
    const int32_t *who;
    int32_t *last_row;
    int rc, has_perf = 0;

    /* §3 order: by date, then id within a day. */
    s.ord = h->ord[i];
    if (s.ord <= self->last_ordinal) {
        if (s.ord < self->last_ordinal)
            return STOP;
        if (h->id[i] != NO_ID && self->last_kind != LAST_NONE) {
            if (self->last_kind == LAST_INT) {
                if (h->id[i] <= self->last_id_ll)
                    return STOP;
            }
            else {
                PyObject *id = PyLong_FromLongLong(h->id[i]);
                int later = id == NULL ? -1 : PyObject_RichCompareBool(id, self->last_id, Py_LE);
                Py_XDECREF(id);
                if (later != 0)
                    return later < 0 ? stop_or_fail() : STOP;
            }
        }
    }
    s.n_a = h->n_a[i];
    s.n_b = h->n_b[i];
    if (s.n_a == 0 || s.n_b == 0 || s.n_a > MAX_SIDE || s.n_b > MAX_SIDE)
        return STOP;
    o = outcomes + 4 * h->line[i]; /* (s_a, s_b, m, a_won), a_won -1: the line is invalid */
    if (o[3] < 0.0)
        return STOP;
    s.s_a = o[0];
    s.s_b = o[1];
    s.mult = o[2];
    s.a_won = o[3] != 0.0;
    n = s.n_a + s.n_b;
    who = h->players + h->first[i];
    for (k = 0; k < n; k++) {
        int32_t x = map[who[k]];
        if (x < 0) {
            Py_ssize_t got = intern_name(self, PyList_GET_ITEM(h->names, who[k]));
            if (got < 0)
                return stop_or_fail();
            map[who[k]] = x = (int32_t)got;
        }
        s.idx[k] = x;
    }
    if ((rc = step_players(self, &s)) != RATED)
        return rc;
    if (self->n_players > *n_last) {
        Py_ssize_t old = *n_last, want = self->n_players > 2 * old ? self->n_players : 2 * old;
        int32_t *grown = PyMem_Realloc(*last_rows, (size_t)want * sizeof(int32_t));
        if (grown == NULL) {
            PyErr_NoMemory();
            return ERROR;
        }
        for (k = old; k < want; k++)
            grown[k] = -1;
        *last_rows = grown;
        *n_last = want;
    }
    last_row = *last_rows;
    if (self->rules.method == PERFORMANCE_WEIGHTED && perf_fn != Py_None &&
        PyDict_GET_SIZE(h->stats)) {
        PyObject *key = PyLong_FromSsize_t(i);
        int has;
        if (key == NULL)
            return ERROR;
        has = PyDict_Contains(h->stats, key);
        if (has > 0)
            has = call_performance(perf_fn, key, perf, s.n_a, s.n_b) < 0 ? -1 : 1;
        Py_DECREF(key);
        if (has < 0)
            return ERROR;
        has_perf = has;
    }
    if (step_rate(self, &s, has_perf ? perf : NULL, probs != NULL ? &p_win : NULL) != RATED)
        return ERROR;
    if (changes_reserve(out, n, 1) < 0)
        goto undo;
    for (k = 0; k < n; k++)
        if (mark_dirty(self, s.idx[k]) < 0)
            goto undo;
    if (probs != NULL) {
        PyObject *prob = PyFloat_FromDouble(p_win);
        if (prob == NULL || PyList_Append(probs, prob) < 0) {
            Py_XDECREF(prob);
            goto undo;
        }
        Py_DECREF(prob);
    }
    for (k = 0; k < n; k++) {
        Player *p = &self->players[s.idx[k]];
        const Result *r = &s.res[k];
        Row *row = &out->rows[out->n_rows + k];
        int on_a = k < s.n_a;
        if (last_row[s.idx[k]] < 0) { /* the state the run met the player in */
            out->start[out->n_start].rating = p->rating;
            out->start[out->n_start].vol = p->vol;
            row->prev = (int32_t)(-1 - out->n_start++);
        }
        else {
            row->prev = last_row[s.idx[k]];
        }
        last_row[s.idx[k]] = (int32_t)(out->n_rows + k);
        row->rd_before = s.rd[k];
        row->rating_after = r->rating;
        row->rd_after = r->rd;
        row->vol_after = r->vol;
        row->expected = r->expected;
        row->weight = r->weight;
        row->ratio = s.ratio[k];
        row->perf = r->perf;
        row->player = who[k];
        row->flags = (uint8_t)((s.who[k].gate ? ROW_GATE : 0) |
                               ((on_a ? s.a_won : !s.a_won) ? ROW_WON : 0) |
                               (on_a ? ROW_SIDE_A : 0) | (r->floored ? ROW_FLOORED : 0));
        /* the objects of the state before are stale now (player_objects remakes them) */
        Py_CLEAR(p->rating_obj);
        Py_CLEAR(p->rd_obj);
        Py_CLEAR(p->vol_obj);
    }
    out->n_rows += n;
    out->line[out->n] = h->line[i];
    out->first[++out->n] = out->n_rows;
    step_commit(self, &s);
    self->last_kind = h->id[i] == NO_ID ? LAST_NONE : LAST_INT;
    self->last_id_ll = h->id[i];
    return RATED;
undo:
    step_undo(self, &s);
    return ERROR;
}

PyDoc_STRVAR(run_history_doc,
             "run_history(history, start, stop, outcomes, out, probs, performance) -> stop\n\n"
             "Rate history[start:stop] in order into the Changes `out` (and, given a list\n"
             "`probs`, first each match's §6 win probability of side A). `outcomes`: 4 doubles\n"
             "(s_a, s_b, m, a_won) per score line of the history, a_won -1 for a line that\n"
             "fails validation. `performance(i)`: the weights of match i with stats\n"
             "(performance_weighted), or None. Returns the index of the first match left to\n"
             "Python (stop when all were rated); nothing of that match was applied.");

static PyObject *
Replay_run_history(Replay *self, PyObject *args)
{
    History *h;
    Changes *out;
    PyObject *probs, *perf_fn;
    Py_buffer outcomes = {0};
    Py_ssize_t start, stop, i = 0, k, n_map;
    int32_t *map = NULL, *last_row = NULL;
    int rc = RATED, gc_was_on = 0;
    if (!PyArg_ParseTuple(args, "O!nny*O!OO:run_history", &HistoryType, &h, &start, &stop,
                          &outcomes, &ChangesType, &out, &probs, &perf_fn))
        return NULL;
    if (probs == Py_None)
        probs = NULL;
    else if (!PyList_Check(probs)) {
        PyErr_SetString(PyExc_TypeError, "probs must be a list or None");
        goto done;
    }
    if (check_ready(self) < 0 || history_ready(h) < 0 || out->names == NULL)
        goto done;
    if (outcomes.len != PyList_GET_SIZE(h->lines) * 4 * (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "run_history: 4 outcome values per score line");
        goto done;
    }
    if (out->names != h->names) {
        PyErr_SetString(PyExc_ValueError, "run_history: the changes of another history");
        goto done;
    }
    if (out->n != 0) {
        PyErr_SetString(PyExc_ValueError, "run_history: changes of one run only");
        goto done;
    }
    Py_XSETREF(out->outcomes, PyBytes_FromStringAndSize(outcomes.buf, outcomes.len));
    if (out->outcomes == NULL)
        goto done;
    if (start < 0)
        start = 0;
    if (stop > h->n)
        stop = h->n;
    /* Replay indices: those known now, and one new one per name of the history (loading a
       player may add more: their window's opponents; rate_row grows the table then) */
    n_map = self->n_players + PyList_GET_SIZE(h->names) + 1;
    map = PyMem_Malloc((size_t)(PyList_GET_SIZE(h->names) + 1) * sizeof(int32_t));
    last_row = PyMem_Malloc((size_t)n_map * sizeof(int32_t));
    if (map == NULL || last_row == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (k = 0; k < PyList_GET_SIZE(h->names); k++)
        map[k] = -1;
    for (k = 0; k < n_map; k++)
        last_row[k] = -1;
    /* room for every change and match of the run at once */
    if (start < stop) {
        Py_ssize_t rows = (stop < h->n ? h->first[stop] : h->n_players) - h->first[start];
        if (changes_reserve(out, rows, stop - start) < 0)
            goto done;
        prefault(out->rows, 0, (size_t)rows * sizeof(Row));
    }
    Py_INCREF(h);
    self->busy = 1;
    /* The run makes few Python objects (the players it loads, probabilities), but any could
       set off a collection that walks every object of the process (the caller's history
       of MatchResult, say): as Replay.run. */
    gc_was_on = PyGC_Disable();
    for (i = start; i < stop; i++) {
        /* the next matches' players, a few ahead: their state, then their window ends */
        if (i + 4 < stop) {
            const int32_t *who = h->players + h->first[i + 4];
            for (k = 0; k < h->n_a[i + 4] + h->n_b[i + 4]; k++)
                if (map[who[k]] >= 0)
                    PREFETCH(&self->players[map[who[k]]]);
        }
        if (i + 2 < stop && h->n_a[i + 2] == 1 && h->n_b[i + 2] == 1) {
            const int32_t *who = h->players + h->first[i + 2];
            prefetch_player(self, map[who[0]], map[who[1]]);
            prefetch_player(self, map[who[1]], map[who[0]]);
        }
        rc = rate_row(self, h, i, map, &last_row, &n_map, (const double *)outcomes.buf, out,
                      probs, perf_fn);
        if (rc != RATED)
            break;
        if ((i & 0xffff) == 0xffff && PyErr_CheckSignals() < 0) {
            rc = ERROR;
            break;
        }
    }
    if (gc_was_on)
        PyGC_Enable();
    self->busy = 0;
    /* the last rated match's id as an object too (export, and the object path) */
    if (self->last_kind == LAST_NONE)
        Py_SETREF(self->last_id, Py_NewRef(Py_None));
    else if (self->last_kind == LAST_INT) {
        PyObject *id = PyLong_FromLongLong(self->last_id_ll);
        if (id == NULL)
            rc = ERROR;
        else
            Py_SETREF(self->last_id, id);
    }
    Py_DECREF(h);
done:
    PyMem_Free(map);
    PyMem_Free(last_row);
    PyBuffer_Release(&outcomes);
    if (rc == ERROR || PyErr_Occurred())
        return NULL;
    return PyLong_FromSsize_t(i);
}

PyDoc_STRVAR(current_doc,
             "current(name) -> (rating, matches) or None: the player's rating and matches in this\n"
             "working copy now (None: not loaded here; the Replayer's _Player has them). For a\n"
             "newcomer's start (§4).");

static PyObject *
Replay_current(Replay *self, PyObject *name)
{
    PyObject *found = PyDict_GetItemWithError(self->index, name);
    Py_ssize_t idx;
    if (found == NULL) {
        if (PyErr_Occurred())
            return NULL;
        Py_RETURN_NONE;
    }
    idx = PyLong_AsSsize_t(found);
    if (idx < 0)
        return NULL;
    if (self->players[idx].obj == NULL)
        Py_RETURN_NONE;
    return Py_BuildValue("(dL)", self->players[idx].rating, self->players[idx].matches);
}

static PyMethodDef Replay_methods[] = {
    {"run", (PyCFunction)Replay_run, METH_VARARGS, run_doc},
    {"current", (PyCFunction)Replay_current, METH_O, current_doc},
    {"export", (PyCFunction)Replay_export, METH_NOARGS, export_doc},
    {"run_history", (PyCFunction)Replay_run_history, METH_VARARGS, run_history_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(Replay_doc,
             "Replay(*, constants, player, outcomes, outcome, performance, change, change_fields,\n"
             "       fast_change,\n"
             "       match, match_fields, deque, last)\n\n"
             "A working copy of a Replayer for one rate_all call (see the module docstring).");

static PyObject *
Replay_get_fast(Replay *self, void *Py_UNUSED(closure))
{
    return Py_BuildValue("(OO)", self->reader.fast ? Py_True : Py_False,
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

/* A float argument; -1 with an exception otherwise. */
static int
arg_doubles(PyObject *const *args, Py_ssize_t n, double *out)
{
    Py_ssize_t i;
    for (i = 0; i < n; i++)
        if (as_double(args[i], &out[i]) < 0)
            return -1;
    return 0;
}

PyDoc_STRVAR(inflate_doc,
             "inflate(phi, sigma, periods, phi_max) -> phi'\n\n"
             "§3 step 1 (glicko2.inflate): phi grown for `periods` rating periods without a "
             "match, capped at phi_max.");

static PyObject *
native_inflate(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double x[2], phi_max, out;
    long long periods;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "inflate takes 4 arguments");
        return NULL;
    }
    if (arg_doubles(args, 2, x) < 0)
        return NULL;
    if ((periods = PyLong_AsLongLong(args[2])) == -1 && PyErr_Occurred())
        return NULL;
    if ((phi_max = PyFloat_AsDouble(args[3])) == -1.0 && PyErr_Occurred())
        return NULL;
    if (inflate(x[0], x[1], periods, phi_max, &out)) {
        raise_failure(ERR_MATH, NULL); /* NULL: ERR_MATH reads no maths */
        return NULL;
    }
    return PyFloat_FromDouble(out);
}

PyDoc_STRVAR(inactivity_periods_doc,
             "inactivity_periods(last, on, period, starts, per_start) -> periods\n\n"
             "§3 step 1 (predict.inactivity_periods): the rating periods an RD grows by from "
             "day `last` to day `on` (ordinals; last 0: a new player, none): whole periods of "
             "`period` days, plus `per_start` for each of `starts` (increasing ordinals) after "
             "`last` and not after `on`.");

static PyObject *
native_inactivity_periods(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    long long x[3], per_start, *starts, periods;
    Py_ssize_t n_starts, i;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "inactivity_periods takes 5 arguments");
        return NULL;
    }
    for (i = 0; i < 3; i++)
        if ((x[i] = PyLong_AsLongLong(args[i])) == -1 && PyErr_Occurred())
            return NULL;
    if ((per_start = PyLong_AsLongLong(args[4])) == -1 && PyErr_Occurred())
        return NULL;
    if (x[2] < 1 || per_start < 0 || per_start > MAX_PER_START) {
        PyErr_SetString(PyExc_ValueError, "period must be 1 or more and per_start from 0 to "
                        MAX_PER_START_TEXT);
        return NULL;
    }
    if (parse_starts(args[3], &starts, &n_starts) < 0)
        return NULL;
    periods = idle_periods(x[0], x[1], x[2], starts, n_starts, per_start);
    PyMem_Free(starts);
    return PyLong_FromLongLong(periods);
}

PyDoc_STRVAR(win_probability_doc,
             "win_probability(ratings, rds, n_a, maths) -> P\n\n"
             "§6 (predict.win_probability): P(side A wins), side A the first n_a of `ratings` "
             "and `rds` (points, RDs already grown for inactivity), side B the rest.");

static PyObject *
native_win_probability(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double ratings[2 * MAX_SIDE], rds[2 * MAX_SIDE], out;
    PyObject *r = NULL, *d = NULL;
    Py_ssize_t n, n_a, i;
    Maths m;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "win_probability takes 4 arguments");
        return NULL;
    }
    if ((n_a = PyLong_AsSsize_t(args[2])) == -1 && PyErr_Occurred())
        return NULL;
    if (parse_maths(args[3], &m) < 0 ||
        (r = PySequence_Fast(args[0], "ratings must be a sequence")) == NULL ||
        (d = PySequence_Fast(args[1], "rds must be a sequence")) == NULL)
        goto error;
    n = PySequence_Fast_GET_SIZE(r);
    if (n != PySequence_Fast_GET_SIZE(d) || n_a < 1 || n_a >= n || n_a > MAX_SIDE ||
        n - n_a > MAX_SIDE) {
        PyErr_SetString(engine_error, "each side needs 1 to 16 players, a rating and an RD each");
        goto error;
    }
    for (i = 0; i < n; i++) {
        ratings[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(r, i));
        rds[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(d, i));
        if (PyErr_Occurred())
            goto error;
    }
    Py_DECREF(r);
    Py_DECREF(d);
    if (win_probability(&m, ratings, rds, n_a, n - n_a, &out)) {
        raise_failure(ERR_MATH, &m);
        return NULL;
    }
    return PyFloat_FromDouble(out);
error:
    Py_XDECREF(r);
    Py_XDECREF(d);
    return NULL;
}

PyDoc_STRVAR(new_volatility_doc,
             "new_volatility(delta, phi, v, sigma, maths) -> sigma'\n\n"
             "§3 step 6 (glicko2.new_volatility); raises EngineError past the iteration caps.");

static PyObject *
native_new_volatility(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double x[4], out;
    Maths m;
    int rc;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "new_volatility takes 5 arguments");
        return NULL;
    }
    if (arg_doubles(args, 4, x) < 0 || parse_maths(args[4], &m) < 0)
        return NULL;
    if ((rc = new_volatility(&m, x[0], x[1], x[2], x[3], &out))) {
        raise_failure(rc, &m);
        return NULL;
    }
    return PyFloat_FromDouble(out);
}

PyDoc_STRVAR(finish_doc,
             "finish(mu, phi, sigma, v, improvement, gate_open, maths) -> (mu', phi', sigma')\n\n"
             "§3 steps 6-8 (glicko2.finish).");

static PyObject *
native_finish(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double x[5], out[3];
    Maths m;
    int gate, rc;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "finish takes 7 arguments");
        return NULL;
    }
    if (arg_doubles(args, 5, x) < 0 || (gate = PyObject_IsTrue(args[5])) < 0 ||
        parse_maths(args[6], &m) < 0)
        return NULL;
    if ((rc = finish(&m, x[0], x[1], x[2], x[3], x[4], gate, out))) {
        raise_failure(rc, &m);
        return NULL;
    }
    return Py_BuildValue("(ddd)", out[0], out[1], out[2]);
}

PyDoc_STRVAR(update_doc,
             "update(mu, phi, sigma, results, gate_open, maths) -> (mu', phi', sigma')\n\n"
             "§3 steps 3-8 against several opponents in one rating period (glicko2.update);\n"
             "results holds (mu_j, phi_j, s_j, weight_j) per opponent.");

static PyObject *
native_update(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double x[3], out[3], (*terms)[4];
    Maths m;
    PyObject *seq;
    Py_ssize_t n, j;
    int gate, rc = 0;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "update takes 6 arguments");
        return NULL;
    }
    if (arg_doubles(args, 3, x) < 0 || (gate = PyObject_IsTrue(args[4])) < 0 ||
        parse_maths(args[5], &m) < 0)
        return NULL;
    if ((seq = PySequence_Fast(args[3], "results must be a sequence")) == NULL)
        return NULL;
    n = PySequence_Fast_GET_SIZE(seq);
    if (n == 0) {
        Py_DECREF(seq);
        PyErr_SetString(engine_error, "an update needs at least one opponent");
        return NULL;
    }
    if ((terms = PyMem_Malloc((size_t)n * sizeof(*terms))) == NULL) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (j = 0; j < n && rc == 0; j++)
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, j), "dddd;(mu_j, phi_j, s_j, weight_j)",
                              &terms[j][0], &terms[j][1], &terms[j][2], &terms[j][3]))
            rc = -1;
    Py_DECREF(seq);
    if (rc == 0 && (rc = update(&m, x[0], x[1], x[2], (const double(*)[4])terms, n, gate, out)))
        raise_failure(rc, &m);
    PyMem_Free(terms);
    if (rc)
        return NULL;
    return Py_BuildValue("(ddd)", out[0], out[1], out[2]);
}

PyDoc_STRVAR(update_one_doc,
             "update_one(mu, phi, sigma, mu_opp, phi_opp, score, weight, gate_open, maths)\n"
             "-> (mu', phi', sigma', E)\n\n"
             "update against one (possibly composite) opponent (glicko2.update_one).");

static PyObject *
native_update_one(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double x[7], out[4];
    Maths m;
    int gate, rc;
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "update_one takes 9 arguments");
        return NULL;
    }
    if (arg_doubles(args, 7, x) < 0 || (gate = PyObject_IsTrue(args[7])) < 0 ||
        parse_maths(args[8], &m) < 0)
        return NULL;
    if ((rc = update_one(&m, x[0], x[1], x[2], x[3], x[4], x[5], x[6], gate, out))) {
        raise_failure(rc, &m);
        return NULL;
    }
    return Py_BuildValue("(dddd)", out[0], out[1], out[2], out[3]);
}

/* One side of rate_sides: (rating, rd, volatility, weights, gate_open, performance_weight)
   per player into `who`, the weights into `weights` (MAX_SIDE a player). */
static Py_ssize_t
read_side(PyObject *side, Py_ssize_t n_opp, Contestant *who, double (*weights)[MAX_SIDE])
{
    PyObject *seq = PySequence_Fast(side, "a side must be a sequence"), *w;
    Py_ssize_t n, i, j;
    if (seq == NULL)
        return -1;
    n = PySequence_Fast_GET_SIZE(seq);
    for (i = 0; i < n; i++) {
        PyObject *ws;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i),
                              "dddOpd;(rating, rd, volatility, weights, gate_open, performance)",
                              &who[i].rating, &who[i].rd, &who[i].vol, &w, &who[i].gate,
                              &who[i].perf))
            goto fail;
        if ((ws = PySequence_Fast(w, "weights must be a sequence")) == NULL)
            goto fail;
        if (PySequence_Fast_GET_SIZE(ws) != n_opp) {
            Py_DECREF(ws);
            PyErr_SetString(engine_error, "one repetition weight per opponent");
            goto fail;
        }
        for (j = 0; j < n_opp; j++)
            if (as_double(PySequence_Fast_GET_ITEM(ws, j), &weights[i][j]) < 0) {
                Py_DECREF(ws);
                goto fail;
            }
        Py_DECREF(ws);
        who[i].weights = weights[i];
    }
    Py_DECREF(seq);
    return n;
fail:
    Py_DECREF(seq);
    return -1;
}

static PyObject *
results_tuple(const Result *res, Py_ssize_t n)
{
    PyObject *t = PyTuple_New(n), *r;
    Py_ssize_t i;
    if (t == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        r = Py_BuildValue("(ddddddO)", res[i].rating, res[i].rd, res[i].vol, res[i].expected,
                          res[i].weight, res[i].perf, res[i].floored ? Py_True : Py_False);
        if (r == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, r);
    }
    return t;
}

PyDoc_STRVAR(rate_sides_doc,
             "rate_sides(rules, side_a, side_b, s_a, s_b, m, a_won) -> (results_a, results_b)\n\n"
             "Every player's new, bounded state after one match (teams.rate_sides): each side\n"
             "holds (rating, rd, volatility, weights, gate_open, performance_weight) per player,\n"
             "each result is (rating, rd, volatility, expected, repetition_weight,\n"
             "performance_weight, floor_applied).");

static PyObject *
native_rate_sides(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Rules rules;
    Contestant a[MAX_SIDE], b[MAX_SIDE];
    Result ra[MAX_SIDE], rb[MAX_SIDE];
    double wa[MAX_SIDE][MAX_SIDE], wb[MAX_SIDE][MAX_SIDE], x[3];
    Py_ssize_t n_a, n_b;
    int a_won, rc;
    PyObject *out_a, *out_b;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "rate_sides takes 7 arguments");
        return NULL;
    }
    if (parse_rules(args[0], &rules) < 0 || arg_doubles(args + 3, 3, x) < 0 ||
        (a_won = PyObject_IsTrue(args[6])) < 0)
        return NULL;
    n_a = PyObject_Length(args[1]);
    n_b = PyObject_Length(args[2]);
    if (n_a < 0 || n_b < 0)
        return NULL;
    if (n_a == 0 || n_b == 0) {
        PyErr_SetString(engine_error, "each side needs at least one player");
        return NULL;
    }
    if (n_a > MAX_SIDE || n_b > MAX_SIDE) {
        PyErr_Format(engine_error, "at most %d players a side", MAX_SIDE);
        return NULL;
    }
    if (read_side(args[1], n_b, a, wa) < 0 || read_side(args[2], n_a, b, wb) < 0)
        return NULL;
    if ((rc = rate_match(&rules, a, n_a, b, n_b, x[0], x[1], x[2], a_won, ra, rb))) {
        raise_failure(rc, &rules.maths);
        return NULL;
    }
    if ((out_a = results_tuple(ra, n_a)) == NULL)
        return NULL;
    if ((out_b = results_tuple(rb, n_b)) == NULL) {
        Py_DECREF(out_a);
        return NULL;
    }
    return Py_BuildValue("(NN)", out_a, out_b);
}

PyDoc_STRVAR(plain_loop_doc,
             "plain_loop(n_players, a, b, ordinals, outcomes, team, rules, window) -> checksum\n\n"
             "For benchmarks/engine.py: the replay's arithmetic as a plain C loop over arrays, no\n"
             "Python object in or out. `a`, `b`: int32 player indices, `team` a side, per match;\n"
             "`ordinals`: int32 per match; `outcomes`: (s_a, s_b, m, a_won) as 4 doubles per match;\n"
             "`window`: (lookback, alpha, threshold, period, phi_max, initial rating, RD,\n"
             "volatility). Steps 1, 4 and 7 on the same ring buffers and counts as the replay,\n"
             "the same kernel. Returns the sum of the final ratings.");

static PyObject *
native_plain_loop(PyObject *module, PyObject *args)
{
    Py_ssize_t n_players, team, n_matches, k, i, j, t;
    Py_buffer a = {0}, b = {0}, ords = {0}, outs = {0};
    PyObject *rules_obj, *result = NULL;
    Rules rules;
    long long lookback, period;
    double alpha, threshold, phi_max, init[3], checksum = 0.0;
    Player *players = NULL;
    Contestant who[MAX_PLAYERS];
    Result res[MAX_PLAYERS];
    double weights[MAX_PLAYERS][MAX_SIDE];
    int32_t idx[MAX_PLAYERS];
    int rc;

    if (!PyArg_ParseTuple(args, "ny*y*y*y*nO(LddLdddd):plain_loop", &n_players, &a, &b, &ords,
                          &outs, &team, &rules_obj, &lookback, &alpha, &threshold, &period,
                          &phi_max, &init[0], &init[1], &init[2]))
        return NULL;
    n_matches = ords.len / (Py_ssize_t)sizeof(int32_t);
    if (parse_rules(rules_obj, &rules) < 0)
        goto done;
    if (team < 1 || team > MAX_SIDE || period < 1 ||
        a.len != n_matches * team * (Py_ssize_t)sizeof(int32_t) || b.len != a.len ||
        outs.len != n_matches * 4 * (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "plain_loop: array sizes do not match");
        goto done;
    }
    if ((players = PyMem_Calloc((size_t)n_players, sizeof(Player))) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (k = 0; k < n_players; k++) {
        players[k].rating = init[0];
        players[k].rd = init[1];
        players[k].vol = init[2];
    }
    for (k = 0; k < n_matches; k++) {
        const int32_t *ia = (const int32_t *)a.buf + k * team, *ib = (const int32_t *)b.buf + k * team;
        const double *o = (const double *)outs.buf + 4 * k;
        long long ord = ((const int32_t *)ords.buf)[k];
        int glicko1 = rules.method == GLICKO1_TEAM;
        for (i = 0; i < team; i++) {
            idx[i] = ia[i];
            idx[team + i] = ib[i];
        }
        for (i = 0; i < 2 * team; i++) {
            Player *p = &players[idx[i]];
            Py_ssize_t first = i < team ? team : 0;
            int32_t distinct;
            if (window_reserve(p, (int32_t)team) < 0)
                goto done;
            window_prune(p, ord, lookback);
            distinct = p->distinct;
            for (j = 0; j < team; j++) {
                int32_t c = count_get(p, idx[first + j]);
                weights[i][j] = glicko1 ? 1.0 : 1.0 / (1.0 + alpha * (double)c);
                distinct += c == 0;
            }
            who[i].rating = p->rating;
            who[i].rd = p->rd;
            if (p->last != 0 && ord - p->last >= period) {
                double phi = p->rd / rules.maths.scale,
                       grown = sqrt(phi * phi + (double)((ord - p->last) / period) * p->vol * p->vol);
                who[i].rd = rules.maths.scale * (grown < phi_max ? grown : phi_max);
            }
            who[i].vol = p->vol;
            who[i].weights = weights[i];
            who[i].gate = glicko1 || (double)distinct / (double)(p->len + team) >= threshold;
            who[i].perf = 1.0;
        }
        if ((rc = rate_match(&rules, who, team, who + team, team, o[0], o[1], o[2], o[3] != 0.0,
                             res, res + team))) {
            raise_failure(rc, &rules.maths);
            goto done;
        }
        for (i = 0; i < 2 * team; i++) {
            Player *p = &players[idx[i]];
            Py_ssize_t first = i < team ? team : 0;
            p->rating = res[i].rating;
            p->rd = res[i].rd;
            p->vol = res[i].vol;
            p->matches++;
            p->last = ord;
            for (t = 0; t < team; t++)
                window_push(p, (int32_t)ord, idx[first + t], t > 0);
        }
    }
    for (k = 0; k < n_players; k++)
        checksum += players[k].rating;
    result = PyFloat_FromDouble(checksum);
done:
    if (players != NULL) {
        for (k = 0; k < n_players; k++) {
            PyMem_Free(players[k].win);
            PyMem_Free(players[k].counts);
        }
        PyMem_Free(players);
    }
    PyBuffer_Release(&a);
    PyBuffer_Release(&b);
    PyBuffer_Release(&ords);
    PyBuffer_Release(&outs);
    return result;
}

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL

static PyMethodDef native_methods[] = {
    {"inflate", FASTCALL(native_inflate), inflate_doc},
    {"inactivity_periods", FASTCALL(native_inactivity_periods), inactivity_periods_doc},
    {"win_probability", FASTCALL(native_win_probability), win_probability_doc},
    {"new_volatility", FASTCALL(native_new_volatility), new_volatility_doc},
    {"finish", FASTCALL(native_finish), finish_doc},
    {"update", FASTCALL(native_update), update_doc},
    {"update_one", FASTCALL(native_update_one), update_one_doc},
    {"rate_sides", FASTCALL(native_rate_sides), rate_sides_doc},
    {"plain_loop", (PyCFunction)native_plain_loop, METH_VARARGS, plain_loop_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(module_doc, "The rating update (RATINGS.md §3, §5) and the batch replay in C: the one "
             "implementation every path calls (see replay.py and teams.py).");

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "ratings.engine._native", module_doc, -1, native_methods,
};

PyMODINIT_FUNC
PyInit__native(void)
{
    PyObject *module;
    PyObject *types;
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL)
        return NULL;
    if (engine_error == NULL) {
        if ((types = PyImport_ImportModule("ratings.engine.types")) == NULL)
            return NULL;
        engine_error = PyObject_GetAttrString(types, "EngineError");
        Py_DECREF(types);
        if (engine_error == NULL)
            return NULL;
    }
    if (PyType_Ready(&ReplayType) < 0 || PyType_Ready(&HistoryType) < 0 ||
        PyType_Ready(&ChangesType) < 0)
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
    if (PyModule_AddObjectRef(module, "History", (PyObject *)&HistoryType) < 0 ||
        PyModule_AddObjectRef(module, "Changes", (PyObject *)&ChangesType) < 0 ||
        PyModule_AddObject(module, "Replay", (PyObject *)&ReplayType) < 0 ||
        PyModule_AddIntConstant(module, "API_VERSION", API_VERSION) < 0) {
        Py_DECREF(&ReplayType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
