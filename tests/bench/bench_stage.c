/* bench_stage — what the stage layer costs on top of the modules it calls.
 *
 *   - Swiss round 6 of 2,048 players after 5 played rounds: tour_stage_next
 *     (validation, standings, snapshot, pairing) and tour_stage_standings;
 *   - pod-Swiss (k = 4) round 6 of 2,048 after 5 rounds, the same;
 *   - double elimination of 1,024, fully played: tour_stage_next (the
 *     bracket rebuilt and settled layer by layer) and standings.
 *
 * References in the same run: the modules called directly on the same
 * data (tour_standings_compute + tour_swiss_pair / tour_pods_pair on a
 * snapshot built here; tour_double_elim_new + tour_bracket_resolve with
 * the final outcomes), i.e. the floor a hand-wired caller would pay.  A
 * bench reports; it never fails on a figure.
 *
 * Rows of `make bench`'s report (report.h), each against the modules
 * called directly: stage.F.next_ms and stage.F.standings_ms for the Swiss
 * and pod-Swiss, goal a ratio of at most 1.5 (the layer validates the
 * stored matches and builds the snapshot the direct caller builds too:
 * half again at most); stage.double_elim.next_ms, at most 5 (the stage
 * settles the bracket layer by layer from the stored matches, about twenty
 * batches, where the reference resolves it once from the final outcomes);
 * stage.double_elim.standings_ms against the same reference for scale, no
 * goal (placements and a standings row per entrant are more than a resolve). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tournament/pods.h"
#include "tournament/stage.h"
#include "tournament/swiss.h"

#include "report.h"

#define N       2048
#define NB      1024
#define ROUNDS  5
#define REPS    5

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static uint64_t bench_rng(uint64_t *s) {
        uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

struct run {
        struct tour_stage_config cfg;
        struct tour_stage_entrant *ent;
        struct tour_stage_match *m;
        size_t nm, cap;
        struct tour_bye *by;
        size_t nb;
        int n;
        uint64_t rng;
};

static struct tour_stage_input run_input(const struct run *r) {
        return (struct tour_stage_input) { .cfg = &r->cfg, .n_entrants = r->n, .entrants = r->ent,
                                           .n_matches = r->nm, .matches = r->m, .n_byes = r->nb, .byes = r->by };
}

static int run_step(struct run *r) {
        struct tour_stage_input in = run_input(r);
        struct tour_stage_next nx;
        int c = tour_stage_next(&in, &nx, NULL);
        if (c < 0 || nx.finished) {
                tour_stage_next_free(&nx);
                return c < 0 ? c : 0;
        }
        if (r->nm + (size_t) c > r->cap) {
                r->cap = 2 * (r->nm + (size_t) c);
                r->m = realloc(r->m, r->cap * sizeof *r->m);
        }
        r->by = realloc(r->by, (r->nb + (size_t) nx.n_byes + 1) * sizeof *r->by);
        for (int i = 0; i < nx.n_byes; i++)
                r->by[r->nb++] = nx.byes[i];
        for (int i = 0; i < c; i++) {
                struct tour_stage_match *m = &r->m[r->nm++];
                const struct tour_pairing *p = &nx.pairings[i].pairing;
                int perm[TOUR_MAX_SEATS];
                memset(m, 0, sizeof *m);
                m->round = p->round;
                m->table = p->table;
                m->bracket_id = nx.pairings[i].bracket_id;
                m->n = p->n;
                memcpy(m->entrant, p->entrant, sizeof m->entrant);
                for (int k = 0; k < p->n; k++)
                        perm[k] = k;
                for (int k = p->n - 1; k > 0; k--) {
                        int j = (int) (bench_rng(&r->rng) % (uint64_t) (k + 1)), x = perm[k];
                        perm[k] = perm[j];
                        perm[j] = x;
                }
                m->done = true;
                m->result.round = m->round;
                m->result.n = m->n;
                for (int k = 0; k < p->n; k++) {
                        m->result.entrant[k] = p->entrant[k];
                        m->result.rank[k] = perm[k] + 1;
                }
        }
        tour_stage_next_free(&nx);
        return c;
}

static struct run *run_new(enum tour_format f, int n) {
        struct run *r = calloc(1, sizeof *r);
        tour_stage_config_default(f, &r->cfg);
        r->cfg.rounds = f == TOUR_FORMAT_DOUBLE_ELIM ? 0 : ROUNDS + 1;
        r->n = n;
        r->rng = 7;
        r->ent = calloc((size_t) n, sizeof *r->ent);
        for (int e = 0; e < n; e++)
                r->ent[e] = (struct tour_stage_entrant) { .rating = 2000 - e, .active = true };
        return r;
}

/* The modules called directly on the run's data: standings, snapshot, pairing. */
static double direct_pair(const struct run *r, bool pods, double *t_standings) {
        size_t n = (size_t) r->n;
        struct tour_result *res = malloc(r->nm * sizeof *res);
        struct tour_standings_row *rows = malloc(n * sizeof *rows);
        struct tour_pair_entrant *pe = calloc(n, sizeof *pe);
        uint16_t *meet = calloc(n * n, sizeof *meet), *seats = calloc(n * TOUR_MAX_SEATS, sizeof *seats);
        struct tour_pairing *tp = malloc((n + 1) * sizeof *tp);
        struct tour_bye *by = malloc((n + 1) * sizeof *by);
        int nb;
        double t0 = now_s();

        for (size_t i = 0; i < r->nm; i++)
                res[i] = r->m[i].result;
        struct tour_standings_input si = { .n = r->n, .results = res, .n_results = r->nm, .byes = r->by,
                                           .n_byes = r->nb, .points = &r->cfg.points, .tiebreaks = r->cfg.tiebreaks,
                                           .n_tiebreaks = (size_t) r->cfg.n_tiebreaks };
        tour_standings_compute(&si, rows, NULL);
        *t_standings += now_s() - t0;
        for (size_t i = 0; i < n; i++) {
                pe[i].entrant = (int32_t) i;
                pe[i].rating = r->ent[i].rating;
                pe[i].active = true;
        }
        for (size_t i = 0; i < n; i++)
                pe[rows[i].entrant].score = rows[i].points;
        for (size_t i = 0; i < r->nb; i++)
                pe[r->by[i].entrant].byes++;
        for (size_t i = 0; i < r->nm; i++)
                for (int s = 0; s < r->m[i].n; s++) {
                        size_t a = (size_t) r->m[i].entrant[s];
                        seats[a * TOUR_MAX_SEATS + s]++;
                        if (r->m[i].round == ROUNDS)
                                pe[a].last_seat = s + 1;
                        for (int t = 0; t < r->m[i].n; t++)
                                if (t != s)
                                        meet[a * n + (size_t) r->m[i].entrant[t]]++;
                }
        struct tour_pair_input pin = { .n = r->n, .round = ROUNDS + 1, .seed = 0, .entrants = pe,
                                       .meetings = meet, .seats = seats };
        if (pods)
                tour_pods_pair(&pin, 4, TOUR_PODS_BYE, tp, by, &nb, NULL);
        else
                tour_swiss_pair(&pin, tp, by, &nb, NULL);
        double t = now_s() - t0;
        free(res); free(rows); free(pe); free(meet); free(seats); free(tp); free(by);
        return t;
}

static void bench_round(enum tour_format f, const char *label, const char *id) {
        struct run *r = run_new(f, N);
        struct tour_standings_row *rows = malloc(N * sizeof *rows);
        double t_next = 0, t_direct = 0, t_st = 0, t_direct_st = 0;

        for (int i = 0; i < ROUNDS; i++)
                if (run_step(r) <= 0) {
                        printf("%s: stage stopped early\n", label);
                        return;
                }
        for (int k = 0; k < REPS; k++) {
                struct tour_stage_input in = run_input(r);
                struct tour_stage_next nx;
                double t0 = now_s();
                tour_stage_next(&in, &nx, NULL);
                t_next += now_s() - t0;
                tour_stage_next_free(&nx);
                t0 = now_s();
                tour_stage_standings(&in, rows, NULL, NULL);
                t_st += now_s() - t0;
                t_direct += direct_pair(r, f == TOUR_FORMAT_POD_SWISS, &t_direct_st);
        }
        printf("%s round %d of %d (%zu stored matches): tour_stage_next %.1f ms, tour_stage_standings %.1f ms; "
               "reference (standings + pairing module called directly) %.1f ms\n",
               label, ROUNDS + 1, N, r->nm, t_next / REPS * 1e3, t_st / REPS * 1e3, t_direct / REPS * 1e3);
        printf("    reference standings alone (tour_standings_compute) %.1f ms\n", t_direct_st / REPS * 1e3);
        char rid[64], fig[128];
        snprintf(rid, sizeof rid, "stage.%s.next_ms", id);
        snprintf(fig, sizeof fig, "%s round %d of %d: tour_stage_next", label, ROUNDS + 1, N);
        bench_report(rid, fig, "ms", t_next / REPS * 1e3, t_direct / REPS * 1e3, "standings + pairing called directly",
                     BENCH_GOAL_RATIO_MAX, 1.5);
        snprintf(rid, sizeof rid, "stage.%s.standings_ms", id);
        snprintf(fig, sizeof fig, "%s round %d of %d: tour_stage_standings", label, ROUNDS + 1, N);
        bench_report(rid, fig, "ms", t_st / REPS * 1e3, t_direct_st / REPS * 1e3, "tour_standings_compute called directly",
                     BENCH_GOAL_RATIO_MAX, 1.5);
        free(rows);
        free(r->ent); free(r->m); free(r->by); free(r);
}

static void bench_bracket(void) {
        struct run *r = run_new(TOUR_FORMAT_DOUBLE_ELIM, NB);
        struct tour_standings_row *rows = malloc(NB * sizeof *rows);
        double t_next = 0, t_ref = 0, t_st = 0;
        int steps = 0;

        while (run_step(r) > 0)
                steps++;
        struct tour_stage_input in = run_input(r);
        struct tour_stage_bracket_view v;
        tour_stage_bracket(&in, &v, NULL);
        int M = v.bracket->n_matches;
        int8_t *o = malloc((size_t) M);
        struct tour_bracket_state *st = malloc((size_t) M * sizeof *st);
        for (int id = 0; id < M; id++)
                o[id] = v.states[id].status == TOUR_MATCH_DONE ? (int8_t) (v.states[id].winner == v.states[id].occupant[0] ? 0 : 1)
                                                               : TOUR_BRACKET_UNPLAYED;
        tour_stage_bracket_free(&v);
        for (int k = 0; k < REPS; k++) {
                struct tour_stage_next nx;
                double t0 = now_s();
                tour_stage_next(&in, &nx, NULL);
                t_next += now_s() - t0;
                tour_stage_next_free(&nx);
                t0 = now_s();
                tour_stage_standings(&in, rows, NULL, NULL);
                t_st += now_s() - t0;
                t0 = now_s();
                struct tour_bracket *b;
                tour_double_elim_new(NB, &r->cfg.bracket, &b);
                tour_bracket_resolve(b, o, st, NULL);
                tour_bracket_free(b);
                t_ref += now_s() - t0;
        }
        printf("double elimination of %d fully played (%zu matches, %d next() batches): tour_stage_next %.2f ms, "
               "tour_stage_standings %.2f ms; reference (generate + one resolve) %.3f ms\n",
               NB, r->nm, steps, t_next / REPS * 1e3, t_st / REPS * 1e3, t_ref / REPS * 1e3);
        bench_report("stage.double_elim.next_ms", "double elimination of 1,024 fully played: tour_stage_next", "ms",
                     t_next / REPS * 1e3, t_ref / REPS * 1e3, "generate + one resolve", BENCH_GOAL_RATIO_MAX, 5);
        bench_report("stage.double_elim.standings_ms", "double elimination of 1,024 fully played: tour_stage_standings",
                     "ms", t_st / REPS * 1e3, t_ref / REPS * 1e3, "generate + one resolve", BENCH_GOAL_NONE, 0);
        free(o); free(st); free(rows);
        free(r->ent); free(r->m); free(r->by); free(r);
}

int main(void) {
        bench_round(TOUR_FORMAT_SWISS, "swiss", "swiss");
        bench_round(TOUR_FORMAT_POD_SWISS, "pod_swiss k=4", "pod_swiss");
        bench_bracket();
        return 0;
}
