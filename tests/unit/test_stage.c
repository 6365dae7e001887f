/* The stage layer (tournament/stage.h, docs/formats/stages.md).
 *
 * Most tests drive a whole stage the way the daemon does: ask next(), store
 * the pairings and byes, play them with seeded random results, store the
 * results, ask again, until the stage says it is finished.  Every answer
 * is checked against the promises of next() (each active entrant paired
 * once or on a bye, nobody dropped ever paired, the same input giving
 * byte-equal output) and the end against the format's size (rounds,
 * matches) and the standings (everyone ranked).  Then hand-worked
 * examples: dependents of a correction, heats and bracket standings,
 * walkovers, late entry, top cuts, and bad input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/bracket.h"
#include "tournament/heats.h"
#include "tournament/round_robin.h"
#include "tournament/stage.h"

/* ---- a stage driven like the daemon drives it ---------------------------- */

struct sim {
        struct tour_stage_config        cfg;
        int                             n;
        struct tour_stage_entrant       *ent;
        struct tour_stage_match         *m;
        size_t                          nm, capm;
        struct tour_bye                 *by;
        size_t                          nb, capb;
        uint64_t                        rng;
        int                             steps;          /* next() calls that paired something */
        int                             walkovers;      /* at the end (brackets) */
        int                             *dropped_at;    /* step after which dropped, 0 none */
};

static uint64_t sim_rand(uint64_t *s) {
        uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

static struct sim *sim_new(enum tour_format f, int n, uint64_t seed) {
        struct sim *s = calloc(1, sizeof *s);
        assert_non_null(s);
        tour_stage_config_default(f, &s->cfg);
        s->cfg.seed = seed;
        s->n = n;
        s->rng = seed;
        s->ent = calloc((size_t) n + 8, sizeof *s->ent);
        s->dropped_at = calloc((size_t) n + 8, sizeof *s->dropped_at);
        assert_non_null(s->ent);
        assert_non_null(s->dropped_at);
        for (int e = 0; e < n; e++)
                s->ent[e] = (struct tour_stage_entrant) { .rating = 1500 + (n - e) * 10, .active = true };
        return s;
}

static void sim_free(struct sim *s) {
        free(s->ent);
        free(s->m);
        free(s->by);
        free(s->dropped_at);
        free(s);
}

static struct tour_stage_input sim_input(const struct sim *s) {
        return (struct tour_stage_input) { .cfg = &s->cfg, .n_entrants = s->n, .entrants = s->ent,
                                           .n_matches = s->nm, .matches = s->m,
                                           .n_byes = s->nb, .byes = s->by };
}

static void sim_store(struct sim *s, const struct tour_stage_pairing *p) {
        if (s->nm == s->capm) {
                s->capm = s->capm ? 2 * s->capm : 64;
                s->m = realloc(s->m, s->capm * sizeof *s->m);
                assert_non_null(s->m);
        }
        struct tour_stage_match *m = &s->m[s->nm++];
        memset(m, 0, sizeof *m);
        m->round = p->pairing.round;
        m->table = p->pairing.table;
        m->bracket_id = p->bracket_id;
        m->n = p->pairing.n;
        memcpy(m->entrant, p->pairing.entrant, sizeof m->entrant);
}

static void sim_store_bye(struct sim *s, const struct tour_bye *b) {
        if (s->nb == s->capb) {
                s->capb = s->capb ? 2 * s->capb : 64;
                s->by = realloc(s->by, s->capb * sizeof *s->by);
                assert_non_null(s->by);
        }
        s->by[s->nb++] = *b;
}

/* A random result: a random order of the table, a draw in 1 of 8 duels
 * where the format allows one (never in a bracket). */
static void sim_play(struct sim *s, struct tour_stage_match *m) {
        int perm[TOUR_MAX_SEATS];
        struct tour_result *r = &m->result;

        memset(r, 0, sizeof *r);
        r->round = m->round;
        r->n = m->n;
        for (int i = 0; i < m->n; i++)
                perm[i] = i;
        for (int i = m->n - 1; i > 0; i--) {
                int j = (int) (sim_rand(&s->rng) % (uint64_t) (i + 1)), x = perm[i];
                perm[i] = perm[j];
                perm[j] = x;
        }
        for (int i = 0; i < m->n; i++) {
                r->entrant[i] = m->entrant[i];
                r->rank[i] = perm[i] + 1;
        }
        if (m->n == 2 && m->bracket_id < 0 && sim_rand(&s->rng) % 8 == 0)
                r->rank[0] = r->rank[1] = 1;
        m->done = true;
}

/* One next(): checked, repeated for determinism, stored, played.  Returns
 * false once the stage is finished. */
static bool sim_step(struct sim *s) {
        struct tour_stage_input in = sim_input(s);
        struct tour_stage_next nx, again;
        struct tour_stage_error err;
        bool bracket = s->cfg.format == TOUR_FORMAT_SINGLE_ELIM || s->cfg.format == TOUR_FORMAT_DOUBLE_ELIM;
        int r = tour_stage_next(&in, &nx, &err);
        int *seen;

        if (r < 0)
                fail_msg("next: %d (%s), format %s, n %d, step %d", r, err.text, tour_format_name(s->cfg.format),
                         s->n, s->steps);
        assert_int_equal(tour_stage_next(&in, &again, NULL), r);
        assert_int_equal(again.n_pairings, nx.n_pairings);
        assert_int_equal(again.n_byes, nx.n_byes);
        assert_int_equal(again.finished, nx.finished);
        if (nx.n_pairings)
                assert_memory_equal(again.pairings, nx.pairings, (size_t) nx.n_pairings * sizeof *nx.pairings);
        if (nx.n_byes)
                assert_memory_equal(again.byes, nx.byes, (size_t) nx.n_byes * sizeof *nx.byes);
        assert_int_equal(again.n_walkovers, nx.n_walkovers);
        if (nx.n_walkovers)
                assert_memory_equal(again.walkovers, nx.walkovers, (size_t) nx.n_walkovers * sizeof *nx.walkovers);
        tour_stage_next_free(&again);
        s->walkovers = nx.n_walkovers;
        if (nx.finished) {
                assert_int_equal(nx.n_pairings, 0);
                tour_stage_next_free(&nx);
                return false;
        }
        /* brackets may wait for nothing here: every ready match is played at once */
        assert_true(nx.n_pairings > 0 || nx.n_byes > 0);
        seen = calloc((size_t) s->n, sizeof *seen);
        assert_non_null(seen);
        for (int i = 0; i < nx.n_pairings; i++) {
                const struct tour_pairing *p = &nx.pairings[i].pairing;
                assert_true(p->n >= 1 && p->n <= TOUR_MAX_SEATS);
                if (bracket)
                        assert_true(nx.pairings[i].bracket_id >= 0);
                else {
                        assert_int_equal(nx.pairings[i].bracket_id, -1);
                        assert_int_equal(p->round, nx.round);
                }
                for (int k = 0; k < p->n; k++) {
                        assert_true(p->entrant[k] >= 0 && p->entrant[k] < s->n);
                        assert_true(s->ent[p->entrant[k]].active);
                        seen[p->entrant[k]]++;
                }
        }
        for (int i = 0; i < nx.n_byes; i++) {
                assert_true(s->ent[nx.byes[i].entrant].active);
                assert_int_equal(nx.byes[i].round, nx.round);
                seen[nx.byes[i].entrant]++;
        }
        /* groups: an entrant whose group's schedule has ended sits out */
        int32_t *grp = calloc((size_t) s->n, sizeof *grp);
        int *size = calloc((size_t) s->n, sizeof *size);
        assert_non_null(grp);
        assert_non_null(size);
        if (s->cfg.format == TOUR_FORMAT_GROUPS) {
                assert_true(tour_stage_group_of(&in, grp) >= 2);
                for (int e = 0; e < s->n; e++)
                        size[grp[e]]++;
        }
        for (int e = 0; e < s->n; e++) {
                assert_true(seen[e] <= 1);
                bool scheduled = s->cfg.format != TOUR_FORMAT_GROUPS ||
                                 nx.round <= tour_round_robin_rounds(size[grp[e]], s->cfg.double_round_robin ? 2 : 1);
                /* round formats but heats seat every active entrant */
                if (!bracket && s->cfg.format != TOUR_FORMAT_HEATS && s->ent[e].active && scheduled)
                        assert_int_equal(seen[e], 1);
                if (!scheduled)
                        assert_int_equal(seen[e], 0);
        }
        free(grp);
        free(size);
        free(seen);
        size_t first = s->nm;
        for (int i = 0; i < nx.n_pairings; i++)
                sim_store(s, &nx.pairings[i]);
        for (int i = 0; i < nx.n_byes; i++)
                sim_store_bye(s, &nx.byes[i]);
        tour_stage_next_free(&nx);
        if (!bracket && first < s->nm) {
                /* the round is locked until its results are in */
                in = sim_input(s);
                assert_int_equal(tour_stage_next(&in, &nx, NULL), -EBUSY);
                tour_stage_next_free(&nx);
        }
        for (size_t i = first; i < s->nm; i++)
                sim_play(s, &s->m[i]);
        s->steps++;
        return true;
}

/* Runs to the end (bounded, so a stage that never ends fails), then checks
 * the standings rank everyone. */
static void sim_run(struct sim *s, int drop_after, int drop_who) {
        struct tour_standings_row *rows;
        int *place, *count;
        struct tour_stage_input in;
        struct tour_stage_error err;

        while (sim_step(s)) {
                assert_true(s->steps < 4 * s->n + 16);
                if (s->steps == drop_after && drop_who >= 0 && drop_who < s->n) {
                        s->ent[drop_who].active = false;
                        s->dropped_at[drop_who] = s->steps;
                }
        }
        rows = calloc((size_t) s->n, sizeof *rows);
        place = calloc((size_t) s->n, sizeof *place);
        count = calloc((size_t) s->n, sizeof *count);
        in = sim_input(s);
        int r = tour_stage_standings(&in, rows, place, &err);
        if (r < 0)
                fail_msg("standings: %d (%s)", r, err.text);
        assert_int_equal(r, s->n);
        for (int i = 0; i < s->n; i++) {
                count[rows[i].entrant]++;
                if (i == 0)
                        assert_int_equal(rows[i].rank, 1);
                else
                        assert_true(rows[i].rank == rows[i - 1].rank || rows[i].rank == i + 1);
                if (i > 0)
                        assert_true(place[i] >= place[i - 1]);
                assert_int_equal(rows[i].dropped, !s->ent[rows[i].entrant].active);
        }
        for (int e = 0; e < s->n; e++)
                assert_int_equal(count[e], 1);
        free(rows);
        free(place);
        free(count);
}

/* Dropped entrants appear in no match of a step after their drop. */
static void assert_drops_respected(const struct sim *s) {
        for (size_t i = 0; i < s->nm; i++)
                for (int k = 0; k < s->m[i].n; k++) {
                        int e = s->m[i].entrant[k];
                        if (s->dropped_at[e] && !s->ent[e].active) {
                                /* rounds are steps for round formats; brackets
                                 * never pair after the drop either, checked in
                                 * sim_step through the active flag */
                                if (s->m[i].bracket_id < 0)
                                        assert_true(s->m[i].round <= s->dropped_at[e]);
                        }
                }
}

static int sim_rounds_played(const struct sim *s) {
        int r = 0;
        for (size_t i = 0; i < s->nm; i++)
                if (s->m[i].round > r)
                        r = s->m[i].round;
        for (size_t i = 0; i < s->nb; i++)
                if (s->by[i].round > r)
                        r = s->by[i].round;
        return r;
}

/* ---- names, defaults, config ------------------------------------------- */

static void format_names_round_trip_and_unknown_names_are_refused(void **state) {
        static const char *const names[] = { "single_elimination", "double_elimination", "round_robin", "swiss",
                                             "pod_swiss", "league", "heats", "race", "groups" };
        enum tour_format f;
        (void) state;
        for (int i = 0; i < 9; i++) {
                assert_string_equal(tour_format_name((enum tour_format) (i + 1)), names[i]);
                assert_int_equal(tour_format_from_name(names[i], &f), 0);
                assert_int_equal(f, i + 1);
        }
        assert_null(tour_format_name((enum tour_format) 0));
        assert_null(tour_format_name((enum tour_format) 10));
        assert_int_equal(tour_format_from_name("dutch", &f), -EINVAL);
        assert_int_equal(tour_format_from_name(NULL, &f), -EINVAL);
        assert_int_equal(tour_format_from_name("swiss", NULL), -EINVAL);
}

static void defaults_are_valid_and_as_documented(void **state) {
        struct tour_stage_config c;
        (void) state;
        for (int f = TOUR_FORMAT_SINGLE_ELIM; f <= TOUR_FORMAT_GROUPS; f++) {
                tour_stage_config_default((enum tour_format) f, &c);
                assert_int_equal(tour_stage_config_check(&c, 16, NULL), 0);
        }
        /* groups: as round robin, about 4 a group by the snake */
        tour_stage_config_default(TOUR_FORMAT_GROUPS, &c);
        assert_int_equal(c.points.mode, TOUR_POINTS_WDL);
        assert_true(c.points.win == 3 && c.points.draw == 1 && c.points.loss == 0 && c.points.bye == 3);
        assert_int_equal(c.n_tiebreaks, 2);
        assert_int_equal(c.tiebreaks[0], TOUR_TB_DIRECT_ENCOUNTER);
        assert_int_equal(c.tiebreaks[1], TOUR_TB_SONNEBORN_BERGER);
        assert_int_equal(c.groups, 0);
        assert_false(c.draw);
        assert_int_equal(tour_stage_groups_count(&c, 16), 4);
        assert_int_equal(tour_stage_groups_count(&c, 17), 5);
        assert_int_equal(tour_stage_groups_count(&c, 4), 2);
        /* 16 in 4 groups of 4: 3 rounds; 18 in 5 groups of 4 and 3: the
         * groups of 4 play 3, the groups of 3 play 3 with a bye each */
        assert_int_equal(tour_stage_rounds(&c, 16), 3);
        c.groups = 2;
        /* 9 in groups of 5 and 4: the group of 5 plays 5 rounds */
        assert_int_equal(tour_stage_rounds(&c, 9), 5);
        c.double_round_robin = true;
        assert_int_equal(tour_stage_rounds(&c, 8), 6);
        tour_stage_config_default(TOUR_FORMAT_SWISS, &c);
        assert_int_equal(c.points.mode, TOUR_POINTS_WDL);
        assert_true(c.points.win == 3 && c.points.draw == 1 && c.points.loss == 0 && c.points.bye == 3);
        assert_int_equal(c.n_tiebreaks, 2);
        assert_int_equal(c.tiebreaks[0], TOUR_TB_BUCHHOLZ);
        assert_int_equal(c.tiebreaks[1], TOUR_TB_SONNEBORN_BERGER);
        /* 2^4 = 16 < 17 <= 2^5: five rounds */
        assert_int_equal(tour_stage_rounds(&c, 17), 5);
        tour_stage_config_default(TOUR_FORMAT_POD_SWISS, &c);
        assert_int_equal(c.points.mode, TOUR_POINTS_PLACEMENT);
        assert_int_equal(c.table_size, 4);
        assert_int_equal(c.pod_policy, TOUR_PODS_BYE);
        /* a bye is worth an average seat of a table of 4: (3+2+1+0)/4 */
        assert_true(c.points.bye == 1.5);
        assert_int_equal(c.tiebreaks[0], TOUR_TB_PLACEMENT_AVG);
        /* 4^1 < 13 <= 4^2 */
        assert_int_equal(tour_stage_rounds(&c, 13), 2);
        tour_stage_config_default(TOUR_FORMAT_LEAGUE, &c);
        /* (12 - 1) / (4 - 1) = 3.67: four rounds */
        assert_int_equal(tour_stage_rounds(&c, 12), 4);
        tour_stage_config_default(TOUR_FORMAT_DOUBLE_ELIM, &c);
        assert_int_equal(c.bracket.grand_final, TOUR_GRAND_FINAL_DOUBLE);
        tour_stage_config_default(TOUR_FORMAT_HEATS, &c);
        assert_int_equal(c.advance, 2);
        /* 64 -> 32 -> 16 -> 8 -> 4 */
        assert_int_equal(tour_stage_rounds(&c, 64), 5);
        tour_stage_config_default(TOUR_FORMAT_ROUND_ROBIN, &c);
        assert_int_equal(tour_stage_rounds(&c, 7), 7);
        c.double_round_robin = true;
        assert_int_equal(tour_stage_rounds(&c, 8), 14);
        /* single elimination of 8: quarter-finals, semi-finals, final */
        tour_stage_config_default(TOUR_FORMAT_SINGLE_ELIM, &c);
        assert_int_equal(tour_stage_rounds(&c, 8), 3);
}

static void a_bad_config_is_refused_with_a_message_naming_the_field(void **state) {
        struct tour_stage_config c;
        struct tour_stage_error err;
        (void) state;
        tour_stage_config_default(TOUR_FORMAT_POD_SWISS, &c);
        c.table_size = 7;
        assert_int_equal(tour_stage_config_check(&c, 12, &err), -EINVAL);
        assert_string_equal(err.text, "table_size: must be 3 to 6 for pod_swiss");
        tour_stage_config_default(TOUR_FORMAT_HEATS, &c);
        c.advance = 4;
        assert_int_equal(tour_stage_config_check(&c, 12, &err), -EINVAL);
        assert_string_equal(err.text, "advance: must be 1 to table_size - 1 (3) for heats");
        /* heats of 2 would send the odd one out without a game */
        c.table_size = 2;
        c.advance = 1;
        assert_int_equal(tour_stage_config_check(&c, 7, &err), -EINVAL);
        assert_string_equal(err.text, "table_size: must be 3 to 16 for heats (heats of 2 are a single_elimination)");
        tour_stage_config_default(TOUR_FORMAT_SINGLE_ELIM, &c);
        assert_int_equal(tour_stage_config_check(&c, 1, &err), -EINVAL);
        assert_string_equal(err.text, "n_entrants: must be 2 to 65536 for single_elimination (got 1)");
        c.rounds = 3;
        assert_int_equal(tour_stage_config_check(&c, 8, &err), -EINVAL);
        assert_string_equal(err.text, "rounds: must be 0 for single_elimination (its structure fixes the rounds)");
        tour_stage_config_default(TOUR_FORMAT_SWISS, &c);
        c.points.win = 0;
        assert_int_equal(tour_stage_config_check(&c, 8, &err), -EINVAL);
        assert_true(strncmp(err.text, "points.", 7) == 0);
        tour_stage_config_default(TOUR_FORMAT_SWISS, &c);
        c.tiebreaks[1] = (enum tour_standings_tb) 99;
        assert_int_equal(tour_stage_config_check(&c, 8, &err), -EINVAL);
        assert_string_equal(err.text, "tiebreaks[1]: unknown (99)");
        c.format = (enum tour_format) 42;
        assert_int_equal(tour_stage_config_check(&c, 8, &err), -EINVAL);
        assert_string_equal(err.text, "format: unknown (42)");
        assert_int_equal(tour_stage_config_check(NULL, 8, &err), -EINVAL);
        assert_int_equal(tour_stage_rounds(NULL, 8), -EINVAL);
}

static void a_bad_groups_config_is_refused_with_a_message_naming_the_field(void **state) {
        struct tour_stage_config c;
        struct tour_stage_error err;
        (void) state;
        tour_stage_config_default(TOUR_FORMAT_GROUPS, &c);
        assert_int_equal(tour_stage_config_check(&c, 3, &err), -EINVAL);
        assert_string_equal(err.text, "n_entrants: must be 4 to 4096 for groups (got 3)");
        c.groups = 1;
        assert_int_equal(tour_stage_config_check(&c, 8, &err), -EINVAL);
        assert_string_equal(err.text, "groups: must be 0 (about 4 a group) or 2 to 256");
        c.groups = 257;
        assert_int_equal(tour_stage_config_check(&c, 600, &err), -EINVAL);
        assert_string_equal(err.text, "groups: must be 0 (about 4 a group) or 2 to 256");
        c.groups = -2;
        assert_int_equal(tour_stage_config_check(&c, 8, &err), -EINVAL);
        assert_string_equal(err.text, "groups: must be 0 (about 4 a group) or 2 to 256");
        /* every group needs two to play */
        c.groups = 5;
        assert_int_equal(tour_stage_config_check(&c, 9, &err), -EINVAL);
        assert_string_equal(err.text, "groups: 5 groups need at least 10 entrants (n_entrants is 9)");
        assert_int_equal(tour_stage_config_check(&c, 10, &err), 0);
        assert_int_equal(tour_stage_rounds(&c, 9), -EINVAL);
        c.groups = 0;
        c.rounds = 2;
        assert_int_equal(tour_stage_config_check(&c, 8, &err), -EINVAL);
        assert_string_equal(err.text, "rounds: must be 0 for groups (its structure fixes the rounds)");
        c.rounds = 0;
        c.tiebreaks[0] = (enum tour_standings_tb) 0;
        assert_int_equal(tour_stage_config_check(&c, 8, &err), -EINVAL);
        assert_string_equal(err.text, "tiebreaks[0]: unknown (0)");
        /* group_of: groups stages only */
        struct tour_stage_entrant e[8];
        int32_t grp[8];
        for (int i = 0; i < 8; i++)
                e[i] = (struct tour_stage_entrant) { .rating = 0, .active = true };
        tour_stage_config_default(TOUR_FORMAT_ROUND_ROBIN, &c);
        struct tour_stage_input in = { .cfg = &c, .n_entrants = 8, .entrants = e };
        assert_int_equal(tour_stage_group_of(&in, grp), -EINVAL);
        assert_int_equal(tour_stage_group_of(NULL, grp), -EINVAL);
        tour_stage_config_default(TOUR_FORMAT_GROUPS, &c);
        assert_int_equal(tour_stage_group_of(&in, NULL), -EINVAL);
        /* snake of 8 into 2: 0 3 4 7 | 1 2 5 6 */
        assert_int_equal(tour_stage_group_of(&in, grp), 2);
        static const int32_t want[8] = { 0, 1, 1, 0, 0, 1, 1, 0 };
        assert_memory_equal(grp, want, sizeof want);
}

/* ---- whole stages ------------------------------------------------------- */

static void swiss_stages_of_2_to_40_play_ceil_log2_n_rounds_with_everyone_paired_or_on_a_bye(void **state) {
        (void) state;
        for (int n = 2; n <= 40; n++) {
                struct sim *s = sim_new(TOUR_FORMAT_SWISS, n, 1000 + (uint64_t) n);
                int want = 0;
                while ((1 << want) < n)
                        want++;
                sim_run(s, 0, -1);
                assert_int_equal(sim_rounds_played(s), want);
                /* n/2 tables a round, the odd one out on a bye */
                assert_int_equal(s->nm, (size_t) (want * (n / 2)));
                assert_int_equal(s->nb, (size_t) (want * (n % 2)));
                sim_free(s);
        }
}

static void pod_swiss_league_and_race_stages_of_3_to_40_play_their_rounds_at_tables_of_at_most_4(void **state) {
        static const enum tour_format fs[] = { TOUR_FORMAT_POD_SWISS, TOUR_FORMAT_LEAGUE, TOUR_FORMAT_RACE };
        (void) state;
        for (int fi = 0; fi < 3; fi++)
                for (int n = fs[fi] == TOUR_FORMAT_RACE ? 2 : 3; n <= 40; n++) {
                        struct sim *s = sim_new(fs[fi], n, 77 * (uint64_t) n + (uint64_t) fi);
                        sim_run(s, 0, -1);
                        assert_int_equal(sim_rounds_played(s), tour_stage_rounds(&s->cfg, n));
                        for (size_t i = 0; i < s->nm; i++) {
                                /* pods of k and k-1 (a bye when n = 5); a race
                                 * table of 2..4 */
                                assert_true(s->m[i].n <= 4);
                                assert_true(s->m[i].n >= (fs[fi] == TOUR_FORMAT_RACE ? 2 : 3));
                        }
                        if (fs[fi] == TOUR_FORMAT_RACE)
                                assert_int_equal(s->nb, 0);
                        sim_free(s);
                }
}

static void a_pod_swiss_of_2_under_the_bye_policy_cannot_be_seated(void **state) {
        struct sim *s = sim_new(TOUR_FORMAT_POD_SWISS, 2, 5);
        struct tour_stage_input in = sim_input(s);
        struct tour_stage_next nx;
        struct tour_stage_error err;
        (void) state;
        assert_int_equal(tour_stage_next(&in, &nx, &err), -ERANGE);
        assert_string_equal(err.text, "pod_policy: 2 active entrants cannot be seated at tables of 4 under this policy");
        tour_stage_next_free(&nx);
        sim_free(s);
}

static void swiss_and_pod_swiss_of_up_to_300_finish(void **state) {
        static const int ns[] = { 64, 127, 300 };
        (void) state;
        for (int i = 0; i < 3; i++) {
                struct sim *s = sim_new(TOUR_FORMAT_SWISS, ns[i], 9 + (uint64_t) i);
                sim_run(s, 3, ns[i] / 2);
                assert_int_equal(sim_rounds_played(s), tour_stage_rounds(&s->cfg, ns[i]));
                assert_drops_respected(s);
                sim_free(s);
                s = sim_new(TOUR_FORMAT_POD_SWISS, ns[i], 19 + (uint64_t) i);
                sim_run(s, 2, 0);
                assert_int_equal(sim_rounds_played(s), tour_stage_rounds(&s->cfg, ns[i]));
                assert_drops_respected(s);
                sim_free(s);
        }
}

static void round_robins_of_2_to_40_pair_everyone_once_per_cycle(void **state) {
        (void) state;
        for (int cycles = 1; cycles <= 2; cycles++)
                for (int n = 2; n <= 40; n++) {
                        struct sim *s = sim_new(TOUR_FORMAT_ROUND_ROBIN, n, (uint64_t) n);
                        s->cfg.double_round_robin = cycles == 2;
                        sim_run(s, 0, -1);
                        assert_int_equal(sim_rounds_played(s), cycles * (n % 2 ? n : n - 1));
                        assert_int_equal(s->nm, (size_t) (cycles * n * (n - 1) / 2));
                        uint8_t *met = calloc((size_t) n * (size_t) n, 1);
                        for (size_t i = 0; i < s->nm; i++)
                                met[s->m[i].entrant[0] * n + s->m[i].entrant[1]]++,
                                met[s->m[i].entrant[1] * n + s->m[i].entrant[0]]++;
                        for (int a = 0; a < n; a++)
                                for (int b = 0; b < n; b++)
                                        assert_int_equal(met[a * n + b], a == b ? 0 : cycles);
                        free(met);
                        sim_free(s);
                }
}

static void a_round_robin_leaves_a_dropped_entrants_matches_out_and_gives_the_opponent_a_bye(void **state) {
        struct sim *s = sim_new(TOUR_FORMAT_ROUND_ROBIN, 6, 3);
        (void) state;
        /* 6 entrants, 5 rounds of 3 matches; entrant 2 drops after round 2:
         * its 3 remaining matches become byes of their opponents */
        sim_run(s, 2, 2);
        assert_int_equal(sim_rounds_played(s), 5);
        assert_int_equal(s->nm, 15 - 3);
        assert_int_equal(s->nb, 3);
        for (size_t i = 0; i < s->nb; i++)
                assert_true(s->by[i].round >= 3 && s->by[i].entrant != 2);
        assert_drops_respected(s);
        sim_free(s);
}

static void brackets_of_2_to_40_play_every_match_once_and_place_everyone(void **state) {
        (void) state;
        for (int g = 0; g < 4; g++)
                for (int n = 2; n <= 40; n++) {
                        enum tour_format f = g == 0 ? TOUR_FORMAT_SINGLE_ELIM : TOUR_FORMAT_DOUBLE_ELIM;
                        struct sim *s = sim_new(f, n, 31 * (uint64_t) n + (uint64_t) g);
                        struct tour_stage_bracket_view v;
                        struct tour_stage_input in;
                        if (g == 0)
                                s->cfg.bracket.third_place = n % 2 == 1;
                        else
                                s->cfg.bracket.grand_final = (enum tour_grand_final) (g - 1);
                        sim_run(s, 0, -1);
                        in = sim_input(s);
                        assert_int_equal(tour_stage_bracket(&in, &v, NULL), 0);
                        int skipped = 0;
                        for (int id = 0; id < v.bracket->n_matches; id++) {
                                enum tour_match_status st = v.states[id].status;
                                assert_true(st == TOUR_MATCH_DONE || st == TOUR_MATCH_BYE || st == TOUR_MATCH_VOID ||
                                            st == TOUR_MATCH_NOT_NEEDED);
                                skipped += st == TOUR_MATCH_NOT_NEEDED;
                        }
                        /* single: n-1 (+1 for third place); double: 2n-3,
                         * 2n-2, 2n-1 with the reset, unless not needed */
                        assert_int_equal(s->nm, (size_t) (v.bracket->n_played - skipped));
                        if (g == 0)
                                assert_int_equal(s->nm, (size_t) (n - 1 + (n % 2 == 1 && n >= 5)));
                        for (int e = 0; e < n; e++)
                                assert_true(v.place[e] >= 1);
                        tour_stage_bracket_free(&v);
                        sim_free(s);
                }
}

static void heats_play_the_nominal_plan_down_to_one_final(void **state) {
        (void) state;
        for (int k = 3; k <= 6; k++)
                for (int q = 1; q < k; q++)
                        for (int n = 2; n <= 40; n++) {
                                struct sim *s = sim_new(TOUR_FORMAT_HEATS, n, (uint64_t) (n * k + q));
                                s->cfg.table_size = k;
                                s->cfg.advance = q;
                                struct tour_heats_stage plan[64];
                                int rounds = tour_heats_plan(n, k, q, plan, 64), last, heats = 0;
                                sim_run(s, 0, -1);
                                /* a plan whose final would seat one entrant
                                 * ends a round early: the lone survivor has
                                 * won, no final is played (heats of 2,
                                 * which alone could leave one, are refused) */
                                bool lone = rounds > 1 && plan[rounds - 1].entrants < 2;
                                last = sim_rounds_played(s);
                                if (last != rounds - lone)
                                        fail_msg("n %d k %d q %d: %d rounds, plan %d", n, k, q, last, rounds);
                                for (size_t i = 0; i < s->nm; i++)
                                        heats += s->m[i].round == last;
                                if (!lone)
                                        assert_int_equal(heats, 1);
                                sim_free(s);
                        }
}

static void dropped_entrants_are_never_paired_again_in_any_format(void **state) {
        (void) state;
        for (int f = TOUR_FORMAT_SINGLE_ELIM; f <= TOUR_FORMAT_GROUPS; f++)
                for (int n = 6; n <= 30; n += 4) {
                        struct sim *s = sim_new((enum tour_format) f, n, (uint64_t) (f * 100 + n));
                        /* the top seed drops after the first step, entrant 3
                         * after the second: sim_step asserts neither is
                         * paired again */
                        while (sim_step(s)) {
                                if (s->steps == 1)
                                        s->ent[0].active = false, s->dropped_at[0] = 1;
                                if (s->steps == 2)
                                        s->ent[3].active = false, s->dropped_at[3] = 2;
                                assert_true(s->steps < 4 * n + 16);
                        }
                        assert_drops_respected(s);
                        if (f == TOUR_FORMAT_SINGLE_ELIM || f == TOUR_FORMAT_DOUBLE_ELIM)
                                assert_true(s->walkovers >= 1);
                        sim_free(s);
                }
}

static void the_same_input_gives_byte_equal_output_in_every_format(void **state) {
        (void) state;
        /* sim_step compares two next() calls byte for byte; here two whole
         * stages from the same seed must store the same matches */
        for (int f = TOUR_FORMAT_SINGLE_ELIM; f <= TOUR_FORMAT_GROUPS; f++) {
                struct sim *a = sim_new((enum tour_format) f, 23, 4242), *b = sim_new((enum tour_format) f, 23, 4242);
                /* groups: the seeded draw, so the seed matters too */
                a->cfg.draw = b->cfg.draw = f == TOUR_FORMAT_GROUPS;
                sim_run(a, 1, 5);
                sim_run(b, 1, 5);
                assert_int_equal(a->nm, b->nm);
                assert_int_equal(a->nb, b->nb);
                assert_memory_equal(a->m, b->m, a->nm * sizeof *a->m);
                if (a->nb)
                        assert_memory_equal(a->by, b->by, a->nb * sizeof *a->by);
                struct tour_standings_row ra[23], rb[23];
                struct tour_stage_input ia = sim_input(a), ib = sim_input(b);
                memset(ra, 0, sizeof ra);
                memset(rb, 0, sizeof rb);
                assert_int_equal(tour_stage_standings(&ia, ra, NULL, NULL), 23);
                assert_int_equal(tour_stage_standings(&ib, rb, NULL, NULL), 23);
                assert_memory_equal(ra, rb, sizeof ra);
                /* who goes on, into a bracket and into a round format: 6 is
                 * a multiple of the 6 groups of 23 */
                for (int k = 0; k < 2; k++) {
                        enum tour_format next = k ? TOUR_FORMAT_SWISS : TOUR_FORMAT_SINGLE_ELIM;
                        int32_t ta[6], tb[6];
                        memset(ta, 0, sizeof ta);
                        memset(tb, 0, sizeof tb);
                        assert_int_equal(tour_stage_advance(&ia, 6, next, ta, NULL), 6);
                        assert_int_equal(tour_stage_advance(&ib, 6, next, tb, NULL), 6);
                        assert_memory_equal(ta, tb, sizeof ta);
                }
                sim_free(a);
                sim_free(b);
        }
}

/* ---- late entry --------------------------------------------------------- */

static void a_late_entrant_joins_round_2_of_a_pod_swiss_and_is_paired(void **state) {
        struct sim *s = sim_new(TOUR_FORMAT_POD_SWISS, 12, 8);
        struct tour_standings_row rows[13];
        struct tour_stage_input in;
        (void) state;
        assert_true(sim_step(s));
        /* entrant 12 is appended by the daemon after round 1 */
        s->ent[12] = (struct tour_stage_entrant) { .rating = 1500, .active = true };
        s->n = 13;
        assert_true(sim_step(s));
        int seated = 0;
        for (size_t i = 0; i < s->nm; i++)
                for (int k = 0; k < s->m[i].n; k++)
                        if (s->m[i].entrant[k] == 12) {
                                assert_int_equal(s->m[i].round, 2);
                                seated++;
                        }
        for (size_t i = 0; i < s->nb; i++)
                seated += s->by[i].entrant == 12;
        assert_int_equal(seated, 1);
        in = sim_input(s);
        assert_int_equal(tour_stage_standings(&in, rows, NULL, NULL), 13);
        sim_free(s);
}

/* ---- dependents --------------------------------------------------------- */

static void correcting_a_round_1_swiss_result_lists_exactly_the_done_later_matches(void **state) {
        struct sim *s = sim_new(TOUR_FORMAT_SWISS, 8, 2);
        struct tour_stage_input in;
        size_t dep[64];
        (void) state;
        /* three rounds of 4 played: matches 0-3 round 1, 4-7 round 2, 8-11
         * round 3 */
        for (int r = 0; r < 3; r++)
                assert_true(sim_step(s));
        in = sim_input(s);
        assert_int_equal(tour_stage_dependents(&in, 1, false, dep, 64, NULL), 8);
        for (int i = 0; i < 8; i++)
                assert_int_equal(dep[i], (size_t) (4 + i));
        assert_int_equal(tour_stage_dependents(&in, 1, true, dep, 64, NULL), 0);
        assert_int_equal(tour_stage_dependents(&in, 9, false, dep, 64, NULL), 0);
        assert_int_equal(tour_stage_dependents(&in, 1, false, dep, 7, NULL), -ERANGE);
        /* round 3 unplayed: a round-2 correction lists its tables as pending */
        for (size_t i = 8; i < 12; i++)
                s->m[i].done = false;
        in = sim_input(s);
        assert_int_equal(tour_stage_dependents(&in, 5, false, dep, 64, NULL), 0);
        assert_int_equal(tour_stage_dependents(&in, 5, true, dep, 64, NULL), 4);
        assert_int_equal(dep[0], 8);
        assert_int_equal(dep[3], 11);
        assert_int_equal(tour_stage_dependents(&in, 12, false, dep, 64, NULL), -EINVAL);
        sim_free(s);
}

static struct tour_stage_match duel(int round, int id, int a, int b, int winner_seat) {
        struct tour_stage_match m = { .round = round, .table = 1, .bracket_id = id, .n = 2,
                                      .entrant = { a, b }, .done = winner_seat >= 0 };
        if (m.done)
                m.result = (struct tour_result) { .round = round, .n = 2, .entrant = { a, b },
                                                  .rank = { winner_seat == 0 ? 1 : 2, winner_seat == 0 ? 2 : 1 } };
        return m;
}

/* The Swiss pairing reads the floats of the last two rounds from the stored
 * matches (FIDE C.04.3 1.4).  Entrants 0..5, best rated first; 3 points a
 * win.  Round 1: 0 beat 1, 2 beat 5, 4 beat 3.  Round 2: 0 beat 2, 1 (on
 * 0) beat 4 (on 3): 4 downfloated, 1 upfloated; 3 beat 5.  Before round 3:
 * 0 on 6; 1, 2, 3, 4 on 3; 5 on 0.  0 floats into the 3-point bracket and
 * meets 3, the first resident he has not played.  Of the remainder 1, 2,
 * 4 one floats to 5: without history 1-2 and 4 floats (4-5), but 4
 * downfloated last round (C14), so 2-4 and 1 floats (1-5). */
static void a_swiss_stage_hands_the_last_rounds_floats_to_the_pairing(void **state) {
        struct sim *s = sim_new(TOUR_FORMAT_SWISS, 6, 3);
        struct tour_stage_next nx;
        int want[3][2] = { { 0, 3 }, { 1, 5 }, { 2, 4 } }; /* tables by their higher-ranked player */
        (void) state;

        s->m = calloc(6, sizeof *s->m);
        assert_non_null(s->m);
        s->capm = 6;
        s->m[s->nm++] = duel(1, -1, 0, 1, 0);
        s->m[s->nm++] = duel(1, -1, 2, 5, 0);
        s->m[s->nm++] = duel(1, -1, 4, 3, 0);
        s->m[s->nm++] = duel(2, -1, 0, 2, 0);
        s->m[s->nm++] = duel(2, -1, 4, 1, 1);
        s->m[s->nm++] = duel(2, -1, 3, 5, 0);
        for (size_t i = 0; i < s->nm; i++)
                s->m[i].table = (int) (i % 3) + 1;
        struct tour_stage_input in = sim_input(s);
        assert_int_equal(tour_stage_next(&in, &nx, NULL), 3);
        assert_int_equal(nx.round, 3);
        assert_int_equal(nx.n_pairings, 3);
        for (int t = 0; t < 3; t++) {
                const int32_t *e = nx.pairings[t].pairing.entrant;
                int lo = e[0] < e[1] ? e[0] : e[1], hi = e[0] < e[1] ? e[1] : e[0];
                assert_int_equal(lo, want[t][0]);
                assert_int_equal(hi, want[t][1]);
        }
        tour_stage_next_free(&nx);
        sim_free(s);
}

static void a_bracket_correction_lists_only_the_matches_whose_occupants_would_change(void **state) {
        struct tour_stage_config c;
        struct tour_stage_entrant e[8];
        size_t dep[16];
        (void) state;
        tour_stage_config_default(TOUR_FORMAT_SINGLE_ELIM, &c);
        for (int i = 0; i < 8; i++)
                e[i] = (struct tour_stage_entrant) { .rating = 0, .active = true };
        /* 8 seeds, standard placement: R1-1 1v8, R1-2 4v5, R1-3 2v7, R1-4
         * 3v6 (entrants are seed - 1).  Favourites win round 1; 0 beats 3
         * in R2-1 (id 4), 1 beats 2 in R2-2 (id 5); the final (id 6) is
         * stored, not played. */
        struct tour_stage_match m[] = {
                duel(1, 0, 0, 7, 0), duel(1, 1, 3, 4, 0), duel(1, 2, 1, 6, 0), duel(1, 3, 2, 5, 0),
                duel(2, 4, 0, 3, 0), duel(2, 5, 1, 2, 0), duel(3, 6, 0, 1, -1),
        };
        struct tour_stage_input in = { .cfg = &c, .n_entrants = 8, .entrants = e, .n_matches = 7, .matches = m };
        /* correcting 4v5 (match 1) puts 4 in R2-1 instead of 3: R2-1 is
         * invalid, and the final, whose side comes from R2-1; R2-2 is not */
        assert_int_equal(tour_stage_dependents(&in, 1, false, dep, 16, NULL), 1);
        assert_int_equal(dep[0], 4);
        assert_int_equal(tour_stage_dependents(&in, 1, true, dep, 16, NULL), 1);
        assert_int_equal(dep[0], 6);
        /* correcting R2-2 changes the final's second side only */
        assert_int_equal(tour_stage_dependents(&in, 5, false, dep, 16, NULL), 0);
        assert_int_equal(tour_stage_dependents(&in, 5, true, dep, 16, NULL), 1);
        /* the final itself feeds nothing */
        assert_int_equal(tour_stage_dependents(&in, 6, false, dep, 16, NULL), 0);
        assert_int_equal(tour_stage_dependents(&in, 6, true, dep, 16, NULL), 0);
}

static void round_robin_corrections_invalidate_nothing(void **state) {
        struct sim *s = sim_new(TOUR_FORMAT_ROUND_ROBIN, 6, 1);
        struct tour_stage_input in;
        size_t dep[32];
        (void) state;
        for (int r = 0; r < 3; r++)
                assert_true(sim_step(s));
        in = sim_input(s);
        for (size_t i = 0; i < s->nm; i++) {
                assert_int_equal(tour_stage_dependents(&in, i, false, dep, 32, NULL), 0);
                assert_int_equal(tour_stage_dependents(&in, i, true, dep, 32, NULL), 0);
        }
        sim_free(s);
}

/* ---- brackets: walkovers, standings, next --------------------------------- */

static void a_dropped_entrant_in_a_bracket_is_walked_over_at_its_next_match(void **state) {
        struct tour_stage_config c;
        struct tour_stage_entrant e[4];
        struct tour_stage_next nx;
        struct tour_standings_row rows[4];
        int place[4];
        (void) state;
        tour_stage_config_default(TOUR_FORMAT_SINGLE_ELIM, &c);
        for (int i = 0; i < 4; i++)
                e[i] = (struct tour_stage_entrant) { .rating = 0, .active = i != 3 };
        /* 4 seeds: R1-1 is seed 1 v seed 4 (0 v 3), R1-2 seed 2 v seed 3
         * (1 v 2).  3 dropped before playing: 0 walks over it. */
        struct tour_stage_input in = { .cfg = &c, .n_entrants = 4, .entrants = e };
        assert_int_equal(tour_stage_next(&in, &nx, NULL), 1);
        assert_int_equal(nx.pairings[0].bracket_id, 1);
        assert_int_equal(nx.pairings[0].pairing.entrant[0], 1);
        assert_int_equal(nx.pairings[0].pairing.entrant[1], 2);
        assert_int_equal(nx.n_walkovers, 1);
        assert_int_equal(nx.walkovers[0].bracket_id, 0);
        assert_int_equal(nx.walkovers[0].winner, 0);
        assert_int_equal(nx.walkovers[0].loser, 3);
        assert_false(nx.finished);
        tour_stage_next_free(&nx);
        /* 2 beats 1: the final 0 v 2 is ready at once */
        struct tour_stage_match m[2] = { duel(1, 1, 1, 2, 1) };
        in.matches = m;
        in.n_matches = 1;
        assert_int_equal(tour_stage_next(&in, &nx, NULL), 1);
        assert_int_equal(nx.pairings[0].bracket_id, 2);
        assert_int_equal(nx.pairings[0].pairing.round, 2);
        assert_int_equal(nx.pairings[0].pairing.entrant[0], 0);
        assert_int_equal(nx.pairings[0].pairing.entrant[1], 2);
        tour_stage_next_free(&nx);
        /* mid-bracket standings: 0 and 2 still in (place 0) ahead of 1 and 3
         * (semi-final losers, 3rd) */
        assert_int_equal(tour_stage_standings(&in, rows, place, NULL), 4);
        assert_int_equal(place[0], 0);
        assert_int_equal(place[1], 0);
        assert_int_equal(place[2], 3);
        assert_int_equal(place[3], 3);
        /* among the two still in, 2 has a win (3 points), 0 none (a walkover
         * is not a result) */
        assert_int_equal(rows[0].entrant, 2);
        assert_int_equal(rows[1].entrant, 0);
        assert_int_equal(rows[1].rank, 2);
        m[1] = duel(2, 2, 0, 2, 0);
        in.n_matches = 2;
        assert_int_equal(tour_stage_next(&in, &nx, NULL), 0);
        assert_true(nx.finished);
        tour_stage_next_free(&nx);
        /* 0 first, 2 second, then the semi-final losers, both 3rd by
         * placement: 1 ahead of 3 on Buchholz (1 met 2, worth 3 points;
         * 3 met nobody), so ranks 3 and 4 */
        assert_int_equal(tour_stage_standings(&in, rows, place, NULL), 4);
        assert_int_equal(rows[0].entrant, 0);
        assert_int_equal(rows[1].entrant, 2);
        assert_int_equal(place[0], 1);
        assert_int_equal(place[1], 2);
        assert_int_equal(place[2], 3);
        assert_int_equal(place[3], 3);
        assert_int_equal(rows[2].rank, 3);
        assert_int_equal(rows[3].rank, 4);
        assert_int_equal(rows[2].entrant, 1);
        assert_true(rows[3].dropped);
}

static struct tour_stage_match heat(int round, int a, int b, int c, int d, int ra, int rb, int rc, int rd) {
        struct tour_stage_match m = { .round = round, .table = 1, .bracket_id = -1, .n = 4,
                                      .entrant = { a, b, c, d }, .done = true };
        m.result = (struct tour_result) { .round = round, .n = 4, .entrant = { a, b, c, d },
                                          .rank = { ra, rb, rc, rd } };
        return m;
}

static void heats_standings_rank_by_elimination_round_then_points(void **state) {
        struct tour_stage_config c;
        struct tour_stage_entrant e[8];
        struct tour_stage_next nx;
        struct tour_standings_row rows[8];
        int place[8];
        (void) state;
        tour_stage_config_default(TOUR_FORMAT_HEATS, &c);
        for (int i = 0; i < 8; i++)
                e[i] = (struct tour_stage_entrant) { .rating = 0, .active = true };
        struct tour_stage_input in = { .cfg = &c, .n_entrants = 8, .entrants = e };
        /* 8 in heats of 4: the snake deals 0,3,4,7 and 1,2,5,6 */
        assert_int_equal(tour_stage_next(&in, &nx, NULL), 2);
        assert_int_equal(nx.round, 1);
        assert_int_equal(nx.pairings[0].pairing.entrant[0], 0);
        assert_int_equal(nx.pairings[0].pairing.entrant[1], 3);
        assert_int_equal(nx.pairings[0].pairing.entrant[2], 4);
        assert_int_equal(nx.pairings[0].pairing.entrant[3], 7);
        tour_stage_next_free(&nx);
        /* heats finish in seat order; 0, 3 and 1, 2 advance: the final's
         * field is winners 0, 1 then seconds 2, 3 */
        struct tour_stage_match m[3] = { heat(1, 0, 3, 4, 7, 1, 2, 3, 4), heat(1, 1, 2, 5, 6, 1, 2, 3, 4) };
        in.matches = m;
        in.n_matches = 2;
        assert_int_equal(tour_stage_next(&in, &nx, NULL), 1);
        assert_int_equal(nx.round, 2);
        for (int i = 0; i < 4; i++)
                assert_int_equal(nx.pairings[0].pairing.entrant[i], i);
        tour_stage_next_free(&nx);
        /* the final: 3 wins, then 0, 1, 2 */
        m[2] = heat(2, 0, 1, 2, 3, 2, 3, 4, 1);
        in.n_matches = 3;
        assert_int_equal(tour_stage_next(&in, &nx, NULL), 0);
        assert_true(nx.finished);
        tour_stage_next_free(&nx);
        assert_int_equal(tour_stage_standings(&in, rows, place, NULL), 8);
        /* finalists by the final: 3, 0, 1, 2 places 1..4.  Out in round 1,
         * all 5th by placement, then points n - rank at a table of 4: 4 and
         * 5 were 3rd (1 point), 7 and 6 4th (0); placement_avg 3 = 3 and
         * 4 = 4 leaves the pairs tied: ranks 5, 5, 7, 7 */
        static const int want_e[8] = { 3, 0, 1, 2, 4, 5, 6, 7 };
        static const int want_rank[8] = { 1, 2, 3, 4, 5, 5, 7, 7 };
        static const int want_place[8] = { 1, 2, 3, 4, 5, 5, 5, 5 };
        for (int i = 0; i < 8; i++) {
                assert_int_equal(rows[i].entrant, want_e[i]);
                assert_int_equal(rows[i].rank, want_rank[i]);
                assert_int_equal(place[i], want_place[i]);
        }
}

/* ---- top cut ------------------------------------------------------------ */

static void a_top_cut_of_a_13_player_pod_swiss_into_a_final_table_of_4_is_the_top_4(void **state) {
        struct sim *s = sim_new(TOUR_FORMAT_POD_SWISS, 13, 13);
        struct tour_standings_row rows[13];
        struct tour_stage_input in;
        struct tour_stage_next nx;
        int32_t top[4];
        (void) state;
        s->cfg.rounds = 4;
        sim_run(s, 0, -1);
        assert_int_equal(sim_rounds_played(s), 4);
        in = sim_input(s);
        assert_int_equal(tour_stage_standings(&in, rows, NULL, NULL), 13);
        assert_int_equal(tour_stage_top(&in, 4, top, NULL), 4);
        for (int i = 0; i < 4; i++)
                assert_int_equal(top[i], rows[i].entrant);
        /* the final table: heats with n = k = 4 is one heat, the final,
         * seats in seeding order */
        struct sim *f = sim_new(TOUR_FORMAT_HEATS, 4, 1);
        in = sim_input(f);
        assert_int_equal(tour_stage_next(&in, &nx, NULL), 1);
        for (int i = 0; i < 4; i++)
                assert_int_equal(nx.pairings[0].pairing.entrant[i], i);
        tour_stage_next_free(&nx);
        assert_true(sim_step(f));
        assert_false(sim_step(f));
        /* a dropped leader does not advance; too few active is -ERANGE */
        s->ent[rows[0].entrant].active = false;
        in = sim_input(s);
        assert_int_equal(tour_stage_top(&in, 4, top, NULL), 4);
        assert_int_equal(top[0], rows[1].entrant);
        assert_int_equal(top[3], rows[4].entrant);
        assert_int_equal(tour_stage_top(&in, 13, (int32_t[13]) { 0 }, NULL), -ERANGE);
        assert_int_equal(tour_stage_top(&in, 0, top, NULL), -EINVAL);
        sim_free(f);
        sim_free(s);
}

static void a_top_cut_swaps_a_first_round_rematch_away(void **state) {
        struct tour_stage_config c;
        struct tour_stage_entrant e[6];
        int32_t cut[4];
        (void) state;
        tour_stage_config_default(TOUR_FORMAT_SWISS, &c);
        for (int i = 0; i < 6; i++)
                e[i] = (struct tour_stage_entrant) { .rating = 0, .active = true };
        /* one Swiss round: 0 beat 3, 1 beat 4, 2 beat 5.  Winners tie on 3
         * points, Buchholz 0, Sonneborn-Berger 0: standings 0,1,2 then 3,4,5
         * by entrant.  Top 4 = 0,1,2,3, but 1v4 of the cut would be 0 v 3, a
         * rematch: seed 4 trades with seed 3, giving 0 v 2 and 1 v 3. */
        struct tour_stage_match m[] = { duel(1, -1, 0, 3, 0), duel(1, -1, 1, 4, 0), duel(1, -1, 2, 5, 0) };
        struct tour_stage_input in = { .cfg = &c, .n_entrants = 6, .entrants = e, .n_matches = 3, .matches = m };
        assert_int_equal(tour_stage_top(&in, 4, cut, NULL), 4);
        assert_int_equal(cut[3], 3);
        assert_int_equal(tour_stage_top_cut(&in, 4, cut, NULL), 0);
        assert_int_equal(cut[0], 0);
        assert_int_equal(cut[1], 1);
        assert_int_equal(cut[2], 3);
        assert_int_equal(cut[3], 2);
        assert_int_equal(tour_stage_top_cut(&in, 1, cut, NULL), -EINVAL);
}


/* ---- groups --------------------------------------------------------------- */

static void groups_of_4_to_40_entrants_in_2_to_8_groups_play_every_in_group_pair_once_and_no_cross_group_pair(void **state) {
        (void) state;
        for (int cycles = 1; cycles <= 2; cycles++)
                for (int g = 2; g <= 8; g++)
                        for (int n = 2 * g; n <= 40; n++) {
                                struct sim *s = sim_new(TOUR_FORMAT_GROUPS, n, (uint64_t) (n * 16 + g * 2 + cycles));
                                struct tour_stage_input in;
                                int32_t grp[40];
                                int size[8] = { 0 }, maxsize = 0, want = 0;
                                s->cfg.groups = g;
                                s->cfg.double_round_robin = cycles == 2;
                                /* every other field by the seeded draw */
                                s->cfg.draw = n % 2 == 1;
                                in = sim_input(s);
                                assert_int_equal(tour_stage_group_of(&in, grp), g);
                                for (int e = 0; e < n; e++) {
                                        assert_true(grp[e] >= 0 && grp[e] < g);
                                        size[grp[e]]++;
                                }
                                /* sizes differ by at most one; each full pot
                                 * of g seeds is spread over all g groups */
                                for (int k = 0; k < g; k++) {
                                        assert_true(size[k] == n / g || size[k] == (n + g - 1) / g);
                                        if (size[k] > maxsize)
                                                maxsize = size[k];
                                }
                                for (int pot = 0; pot + g <= n; pot += g) {
                                        bool hit[8] = { false };
                                        for (int e = pot; e < pot + g; e++) {
                                                assert_false(hit[grp[e]]);
                                                hit[grp[e]] = true;
                                        }
                                }
                                sim_run(s, 0, -1);
                                assert_int_equal(sim_rounds_played(s), tour_round_robin_rounds(maxsize, cycles));
                                assert_int_equal(sim_rounds_played(s), tour_stage_rounds(&s->cfg, n));
                                uint8_t *met = calloc((size_t) n * (size_t) n, 1);
                                assert_non_null(met);
                                for (size_t i = 0; i < s->nm; i++) {
                                        const struct tour_stage_match *m = &s->m[i];
                                        assert_int_equal(m->n, 2);
                                        met[m->entrant[0] * n + m->entrant[1]]++;
                                        met[m->entrant[1] * n + m->entrant[0]]++;
                                        /* tables 1.. within the round, never shared */
                                        for (size_t j = 0; j < i; j++)
                                                if (s->m[j].round == m->round)
                                                        assert_int_not_equal(s->m[j].table, m->table);
                                }
                                for (int a = 0; a < n; a++)
                                        for (int b = 0; b < n; b++)
                                                assert_int_equal(met[a * n + b],
                                                                 a != b && grp[a] == grp[b] ? cycles : 0);
                                for (int k = 0; k < g; k++)
                                        want += cycles * size[k] * (size[k] - 1) / 2;
                                assert_int_equal(s->nm, (size_t) want);
                                /* the Berger byes: one per cycle for each
                                 * entrant of an odd group */
                                size_t byes = 0;
                                for (int k = 0; k < g; k++)
                                        byes += (size_t) (size[k] % 2 ? cycles * size[k] : 0);
                                assert_int_equal(s->nb, byes);
                                free(met);
                                sim_free(s);
                        }
}

/* The standings of one group as a round robin of that group alone would
 * compute them: its matches and byes renumbered to the group's seeding
 * order (its Berger numbers), which is exactly that round robin's
 * schedule. */
static void assert_group_is_its_own_round_robin(const struct sim *s, const int32_t *grp, int which,
                                                const struct tour_standings_row *rows, const int *place) {
        int n = s->n, size = 0, local[64];
        int32_t member[64];
        struct tour_stage_config rr;
        struct tour_stage_entrant ent[64];
        struct tour_stage_match *m = calloc(s->nm + 1, sizeof *m);
        struct tour_bye *by = calloc(s->nb + 1, sizeof *by);
        struct tour_standings_row rr_rows[64];
        size_t nm = 0, nb = 0;

        assert_non_null(m);
        assert_non_null(by);
        for (int e = 0; e < n; e++)
                if (grp[e] == which) {
                        local[e] = size;
                        ent[size] = s->ent[e];
                        member[size++] = e;
                }
        for (size_t i = 0; i < s->nm; i++)
                if (grp[s->m[i].entrant[0]] == which) {
                        m[nm] = s->m[i];
                        for (int k = 0; k < 2; k++)
                                m[nm].entrant[k] = m[nm].result.entrant[k] = local[s->m[i].entrant[k]];
                        nm++;
                }
        for (size_t i = 0; i < s->nb; i++)
                if (grp[s->by[i].entrant] == which)
                        by[nb++] = (struct tour_bye) { s->by[i].round, local[s->by[i].entrant] };
        rr = s->cfg;
        rr.format = TOUR_FORMAT_ROUND_ROBIN;
        rr.groups = 0;
        rr.draw = false;
        struct tour_stage_input in = { .cfg = &rr, .n_entrants = size, .entrants = ent, .n_matches = nm,
                                       .matches = m, .n_byes = nb, .byes = by };
        struct tour_stage_error err;
        int r = tour_stage_standings(&in, rr_rows, NULL, &err);
        if (r < 0)
                fail_msg("group %d as a round robin: %d (%s)", which, r, err.text);
        /* the group's rows, in the groups stage's order */
        int k = 0;
        for (int i = 0; i < n; i++) {
                if (grp[rows[i].entrant] != which)
                        continue;
                assert_int_equal(rows[i].entrant, member[rr_rows[k].entrant]);
                assert_int_equal(place[i], rr_rows[k].rank);
                assert_true(rows[i].points == rr_rows[k].points);
                assert_int_equal(rows[i].byes, rr_rows[k].byes);
                k++;
        }
        assert_int_equal(k, size);
        free(m);
        free(by);
}

static void a_groups_stage_of_23_is_played_to_its_end_and_each_group_ranks_as_its_own_round_robin(void **state) {
        struct sim *s = sim_new(TOUR_FORMAT_GROUPS, 23, 2323);
        struct tour_standings_row rows[23];
        int place[23];
        int32_t grp[23];
        size_t dep[64];
        struct tour_stage_input in;
        (void) state;
        /* 23 in 6 groups (ceil(23 / 4)): five of 4, one of 3; entrant 9
         * drops after round 1, its opponents get byes from round 2 on */
        sim_run(s, 1, 9);
        assert_drops_respected(s);
        in = sim_input(s);
        assert_int_equal(tour_stage_group_of(&in, grp), 6);
        assert_int_equal(sim_rounds_played(s), 3);
        assert_int_equal(tour_stage_standings(&in, rows, place, NULL), 23);
        /* winners first (a rank shared within a group may put two there),
         * then runners-up, ... */
        for (int i = 1; i < 23; i++)
                assert_true(place[i] >= place[i - 1]);
        assert_int_equal(place[0], 1);
        for (int k = 0; k < 6; k++)
                assert_group_is_its_own_round_robin(s, grp, k, rows, place);
        size_t byes_of_9 = 0, byes_for_9s_group = 0;
        for (size_t i = 0; i < s->nb; i++) {
                byes_of_9 += s->by[i].entrant == 9;
                byes_for_9s_group += grp[s->by[i].entrant] == grp[9] && s->by[i].round >= 2;
        }
        assert_int_equal(byes_of_9, 0);
        /* 9's group is of 4 (no Berger bye): its 2 remaining opponents */
        assert_int_equal(byes_for_9s_group, 2);
        /* a fixed schedule: a correction invalidates nothing */
        for (size_t i = 0; i < s->nm; i++)
                assert_int_equal(tour_stage_dependents(&in, i, false, dep, 64, NULL), 0);
        sim_free(s);
}

/* Lower entrant number always wins: every group finishes in seeding order. */
static void sim_play_by_seed(struct sim *s) {
        for (size_t i = 0; i < s->nm; i++) {
                struct tour_stage_match *m = &s->m[i];
                if (m->done)
                        continue;
                m->result = (struct tour_result) { .round = m->round, .n = 2,
                                                   .entrant = { m->entrant[0], m->entrant[1] },
                                                   .rank = { m->entrant[0] < m->entrant[1] ? 1 : 2,
                                                             m->entrant[0] < m->entrant[1] ? 2 : 1 } };
                m->done = true;
        }
}

static void four_groups_top_2_into_an_8_bracket_meet_winner_against_runner_up_with_group_mates_in_opposite_halves(
        void **state) {
        struct sim *s = sim_new(TOUR_FORMAT_GROUPS, 16, 4);
        struct tour_stage_input in;
        struct tour_stage_next nx;
        struct tour_stage_error err;
        int32_t grp[16], cut[8], order[8];
        int tier[16], seed_at[8], leaf[8];
        (void) state;
        /* snake of 16 into 4: A 0 7 8 15, B 1 6 9 14, C 2 5 10 13, D 3 4 11 12 */
        for (;;) {
                in = sim_input(s);
                assert_true(tour_stage_next(&in, &nx, NULL) >= 0);
                bool fin = nx.finished;
                for (int i = 0; i < nx.n_pairings; i++)
                        sim_store(s, &nx.pairings[i]);
                for (int i = 0; i < nx.n_byes; i++)
                        sim_store_bye(s, &nx.byes[i]);
                tour_stage_next_free(&nx);
                if (fin)
                        break;
                sim_play_by_seed(s);
        }
        in = sim_input(s);
        assert_int_equal(tour_stage_group_of(&in, grp), 4);
        assert_int_equal(tour_stage_advance(&in, 8, TOUR_FORMAT_SINGLE_ELIM, cut, &err), 8);
        for (int e = 0; e < 16; e++)
                tier[e] = -1;
        for (int e = 0; e < 4; e++)
                tier[e] = 0;            /* the group winners */
        for (int e = 4; e < 8; e++)
                tier[e] = 1;            /* the runners-up */
        /* group winners are seeds 1-4 (the best first: all equal here, so by
         * entrant), runners-up 5-8 */
        for (int k = 0; k < 8; k++)
                assert_int_equal(tier[cut[k]], k < 4 ? 0 : 1);
        for (int k = 0; k < 4; k++)
                assert_int_equal(cut[k], k);
        /* the next stage's round 1, as the bracket pairs it */
        struct tour_stage_config se;
        struct tour_stage_entrant ent[8];
        tour_stage_config_default(TOUR_FORMAT_SINGLE_ELIM, &se);
        for (int k = 0; k < 8; k++)
                ent[k] = (struct tour_stage_entrant) { .rating = 0, .active = true };
        struct tour_stage_input next = { .cfg = &se, .n_entrants = 8, .entrants = ent };
        assert_int_equal(tour_stage_next(&next, &nx, NULL), 4);
        for (int i = 0; i < 4; i++) {
                int32_t a = cut[nx.pairings[i].pairing.entrant[0]], b = cut[nx.pairings[i].pairing.entrant[1]];
                assert_int_not_equal(tier[a], tier[b]);
                assert_int_not_equal(grp[a], grp[b]);
        }
        tour_stage_next_free(&nx);
        /* group-mates in opposite halves: they can only meet in the final */
        assert_int_equal(tour_bracket_seed_order(8, seed_at), 0);
        for (int i = 0; i < 8; i++)
                leaf[seed_at[i] - 1] = i;
        for (int a = 0; a < 8; a++)
                for (int b = 0; b < a; b++)
                        if (grp[cut[a]] == grp[cut[b]])
                                assert_int_not_equal(leaf[a] / 4, leaf[b] / 4);
        /* double elimination: the same seeding */
        assert_int_equal(tour_stage_advance(&in, 8, TOUR_FORMAT_DOUBLE_ELIM, order, NULL), 8);
        assert_memory_equal(order, cut, sizeof cut);
        /* into a round format: by place in the group, then points */
        assert_int_equal(tour_stage_advance(&in, 8, TOUR_FORMAT_ROUND_ROBIN, order, NULL), 8);
        static const int32_t want[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
        assert_memory_equal(order, want, sizeof want);
        /* group A's winner drops: A's second and third go on instead */
        s->ent[0].active = false;
        in = sim_input(s);
        assert_int_equal(tour_stage_advance(&in, 8, TOUR_FORMAT_ROUND_ROBIN, order, NULL), 8);
        /* tier 0: 7 (A, 2 wins), 1, 2, 3 (3 wins each) by points; tier 1: 8
         * (A's third) behind the runners-up on points */
        static const int32_t want_drop[8] = { 1, 2, 3, 7, 4, 5, 6, 8 };
        assert_memory_equal(order, want_drop, sizeof want_drop);
        assert_int_equal(tour_stage_advance(&in, 8, TOUR_FORMAT_SINGLE_ELIM, cut, NULL), 8);
        for (int i = 0; i < 8; i++)
                assert_int_not_equal(cut[i], 0);
        /* all four of A cannot go on with one dropped */
        int32_t all[16];
        assert_int_equal(tour_stage_advance(&in, 16, TOUR_FORMAT_SWISS, all, &err), -ERANGE);
        assert_string_equal(err.text, "count: group 1 has 3 active entrants, 4 should go on");
        sim_free(s);
}

static void an_advance_from_groups_of_a_count_that_is_not_a_multiple_of_the_groups_is_refused(void **state) {
        struct sim *s = sim_new(TOUR_FORMAT_GROUPS, 16, 5);
        struct tour_stage_input in;
        struct tour_stage_error err;
        int32_t out[16];
        (void) state;
        sim_run(s, 0, -1);
        in = sim_input(s);
        assert_int_equal(tour_stage_advance(&in, 6, TOUR_FORMAT_SINGLE_ELIM, out, &err), -EINVAL);
        assert_string_equal(err.text, "count: 6 is not a multiple of the 4 groups (each group sends the same "
                                      "number on)");
        assert_int_equal(tour_stage_advance(&in, 3, TOUR_FORMAT_SWISS, out, &err), -EINVAL);
        assert_int_equal(tour_stage_advance(&in, 0, TOUR_FORMAT_SWISS, out, &err), -EINVAL);
        assert_string_equal(err.text, "count: must be 1 to 16");
        assert_int_equal(tour_stage_advance(&in, 4, (enum tour_format) 42, out, &err), -EINVAL);
        assert_string_equal(err.text, "next_format: unknown (42)");
        assert_int_equal(tour_stage_advance(&in, 4, TOUR_FORMAT_SWISS, NULL, &err), -EINVAL);
        /* a whole group each: everyone, group by group in place order */
        assert_int_equal(tour_stage_advance(&in, 16, TOUR_FORMAT_SWISS, out, &err), 16);
        assert_int_equal(tour_stage_advance(&in, 4, TOUR_FORMAT_SINGLE_ELIM, out, &err), 4);
        /* a late entrant: 17 split into 5 groups, not the 4 that played */
        s->ent[16] = (struct tour_stage_entrant) { .rating = 1500, .active = true };
        s->n = 17;
        in = sim_input(s);
        struct tour_stage_next nx;
        assert_int_equal(tour_stage_next(&in, &nx, &err), -EINVAL);
        assert_non_null(strstr(err.text, "groups of 17 entrants (an entrant added after the start?)"));
        tour_stage_next_free(&nx);
        sim_free(s);
}

static void an_advance_from_other_formats_is_the_top_cut_into_a_bracket_and_the_top_otherwise(void **state) {
        struct tour_stage_config c;
        struct tour_stage_entrant e[6];
        int32_t cut[4];
        (void) state;
        tour_stage_config_default(TOUR_FORMAT_SWISS, &c);
        for (int i = 0; i < 6; i++)
                e[i] = (struct tour_stage_entrant) { .rating = 0, .active = true };
        /* as a_top_cut_swaps_a_first_round_rematch_away: 0 beat 3, 1 beat
         * 4, 2 beat 5 */
        struct tour_stage_match m[] = { duel(1, -1, 0, 3, 0), duel(1, -1, 1, 4, 0), duel(1, -1, 2, 5, 0) };
        struct tour_stage_input in = { .cfg = &c, .n_entrants = 6, .entrants = e, .n_matches = 3, .matches = m };
        static const int32_t top[4] = { 0, 1, 2, 3 }, swapped[4] = { 0, 1, 3, 2 };
        for (int f = TOUR_FORMAT_SINGLE_ELIM; f <= TOUR_FORMAT_GROUPS; f++) {
                bool bracket = f == TOUR_FORMAT_SINGLE_ELIM || f == TOUR_FORMAT_DOUBLE_ELIM;
                assert_int_equal(tour_stage_advance(&in, 4, (enum tour_format) f, cut, NULL), 4);
                assert_memory_equal(cut, bracket ? swapped : top, sizeof cut);
        }
        /* one goes on: nothing to pair, the top */
        assert_int_equal(tour_stage_advance(&in, 1, TOUR_FORMAT_SINGLE_ELIM, cut, NULL), 1);
        assert_int_equal(cut[0], 0);
        assert_int_equal(tour_stage_advance(&in, 7, TOUR_FORMAT_SINGLE_ELIM, cut, NULL), -EINVAL);
}

/* ---- bad input ---------------------------------------------------------- */

static void bad_input_is_refused_with_a_message(void **state) {
        struct tour_stage_config c, rr, se;
        struct tour_stage_entrant e[6];
        struct tour_stage_next nx;
        struct tour_stage_error err;
        struct tour_standings_row rows[6];
        size_t dep[8];
        (void) state;
        tour_stage_config_default(TOUR_FORMAT_SWISS, &c);
        tour_stage_config_default(TOUR_FORMAT_ROUND_ROBIN, &rr);
        tour_stage_config_default(TOUR_FORMAT_SINGLE_ELIM, &se);
        for (int i = 0; i < 6; i++)
                e[i] = (struct tour_stage_entrant) { .rating = 0, .active = true };
        struct tour_stage_match m[2] = { duel(1, -1, 0, 1, 0), duel(1, -1, 2, 3, 1) };
        struct tour_stage_input in = { .cfg = &c, .n_entrants = 6, .entrants = e, .n_matches = 2, .matches = m };

        assert_int_equal(tour_stage_next(NULL, &nx, &err), -EINVAL);
        assert_string_equal(err.text, "in: missing");
        tour_stage_next_free(&nx);
        assert_int_equal(tour_stage_next(&in, NULL, &err), -EINVAL);

        m[1].entrant[1] = 6;
        assert_int_equal(tour_stage_standings(&in, rows, NULL, &err), -EINVAL);
        assert_string_equal(err.text, "matches[1].entrant[1]: 6 is not an entrant (0..5)");
        m[1] = duel(1, -1, 2, 3, 1);
        m[1].result.entrant[0] = 4;
        assert_int_equal(tour_stage_standings(&in, rows, NULL, &err), -EINVAL);
        assert_string_equal(err.text, "matches[1].result.entrant[0]: differs from the match's");
        m[1] = duel(1, -1, 2, 3, 1);
        m[1].result.rank[1] = 3;
        assert_int_equal(tour_stage_standings(&in, rows, NULL, &err), -EINVAL);
        assert_true(strncmp(err.text, "matches[1].result.rank", 22) == 0);
        m[1] = duel(1, -1, 2, 1, 1);
        assert_int_equal(tour_stage_next(&in, &nx, &err), -EINVAL);
        assert_string_equal(err.text, "matches[1]: entrant 1 plays twice in round 1");
        tour_stage_next_free(&nx);
        m[1] = duel(1, 3, 2, 3, 1);
        assert_int_equal(tour_stage_next(&in, &nx, &err), -EINVAL);
        assert_string_equal(err.text, "matches[1].bracket_id: must be -1 for swiss");
        tour_stage_next_free(&nx);
        m[1] = duel(1, -1, 2, 3, 1);
        e[2].rating = NAN;
        assert_int_equal(tour_stage_next(&in, &nx, &err), -EINVAL);
        assert_string_equal(err.text, "entrants[2].rating: not a finite number");
        tour_stage_next_free(&nx);
        e[2].rating = 0;
        /* a corrupt round number is refused before anything is sized by it */
        m[1].round = m[1].result.round = 70000;
        assert_int_equal(tour_stage_next(&in, &nx, &err), -EINVAL);
        assert_string_equal(err.text, "matches[1].round: must be 1 to 65536");
        tour_stage_next_free(&nx);
        m[1] = duel(1, -1, 2, 3, 1);
        assert_int_equal(tour_stage_dependents(&in, 2, false, dep, 8, &err), -EINVAL);
        assert_string_equal(err.text, "match_index: 2, there are 2 matches");

        /* an unfinished round: -EBUSY, with a message */
        m[1].done = false;
        assert_int_equal(tour_stage_next(&in, &nx, &err), -EBUSY);
        assert_string_equal(err.text, "matches: round 1 is still being played");
        tour_stage_next_free(&nx);
        m[1].done = true;

        /* brackets: an unknown id, the wrong occupants, a draw, a bye */
        in.cfg = &se;
        m[0] = duel(1, 9, 0, 5, 0);
        in.n_matches = 1;
        assert_int_equal(tour_stage_next(&in, &nx, &err), -EINVAL);
        assert_string_equal(err.text, "matches[0].bracket_id: 9 is not a match of the bracket (0..6)");
        tour_stage_next_free(&nx);
        /* 6 in a bracket of 8: seeds 1 and 2 have byes; R1-2 is 4 v 5
         * (entrants 3 v 4) */
        m[0] = duel(1, 1, 3, 5, 0);
        assert_int_equal(tour_stage_next(&in, &nx, &err), -EINVAL);
        assert_string_equal(err.text, "matches[0].entrant: 3 v 5, but bracket match 1 (R1-2) is 3 v 4");
        tour_stage_next_free(&nx);
        m[0] = duel(1, 1, 3, 4, 0);
        m[0].result.rank[1] = 1;
        assert_int_equal(tour_stage_next(&in, &nx, &err), -EINVAL);
        assert_string_equal(err.text,
                            "matches[0].result: a bracket match needs a winner (no draw, no double forfeit)");
        tour_stage_next_free(&nx);
        m[0] = duel(1, 0, 0, 1, 0);
        assert_int_equal(tour_stage_next(&in, &nx, &err), -EINVAL);
        assert_non_null(strstr(err.text, "matches[0].bracket_id: bracket match 0 (R1-1) cannot be played"));
        tour_stage_next_free(&nx);
        in.n_matches = 0;
        in.byes = &(struct tour_bye) { 1, 0 };
        in.n_byes = 1;
        assert_int_equal(tour_stage_next(&in, &nx, &err), -EINVAL);
        assert_string_equal(err.text, "byes: single_elimination has no byes");
        tour_stage_next_free(&nx);
        in.n_byes = 0;
        in.cfg = &c;
        assert_int_equal(tour_stage_bracket(&in, &(struct tour_stage_bracket_view) { 0 }, &err), -EINVAL);
        assert_string_equal(err.text, "format: swiss has no bracket");

        /* round robin: a pairing not in the schedule (as after a late entry) */
        in.cfg = &rr;
        m[0] = duel(1, -1, 0, 1, 0);
        in.n_matches = 1;
        assert_int_equal(tour_stage_next(&in, &nx, &err), -EINVAL);
        assert_string_equal(err.text, "matches[0]: not a pairing of round 1 of the round robin of 6 "
                                      "(an entrant added after the start?)");
        tour_stage_next_free(&nx);
        in.entrants = NULL;
        assert_int_equal(tour_stage_next(&in, &nx, &err), -EINVAL);
        assert_string_equal(err.text, "entrants: missing");
        tour_stage_next_free(&nx);
}

/* Seeded corruption of valid stages: one field of one stored match or bye
 * changed at random, then every operation called.  Each must return a
 * count or -EINVAL / -EBUSY / -ERANGE; none may crash (the sanitizer build
 * runs this too). */
static void corrupted_stages_are_refused_and_never_crash(void **state) {
        (void) state;
        for (int f = TOUR_FORMAT_SINGLE_ELIM; f <= TOUR_FORMAT_GROUPS; f++) {
                struct sim *s = sim_new((enum tour_format) f, 10, (uint64_t) f);
                for (int k = 0; k < 3 && sim_step(s); k++)
                        ;
                uint64_t rng = 99 + (uint64_t) f;
                for (int trial = 0; trial < 300; trial++) {
                        struct sim c = *s;
                        struct tour_stage_match *m = malloc((s->nm + 1) * sizeof *m);
                        struct tour_bye *by = malloc((s->nb + 1) * sizeof *by);
                        memcpy(m, s->m, s->nm * sizeof *m);
                        if (s->nb)
                                memcpy(by, s->by, s->nb * sizeof *by);
                        c.m = m;
                        c.by = by;
                        size_t i = (size_t) (sim_rand(&rng) % s->nm);
                        int v = (int) (sim_rand(&rng) % 23) - 5, slot = (int) (sim_rand(&rng) % 3);
                        switch (sim_rand(&rng) % 9) {
                        case 0: m[i].entrant[slot] = v; break;
                        case 1: m[i].result.entrant[slot] = v; break;
                        case 2: m[i].result.rank[slot] = v; break;
                        case 3: m[i].bracket_id = v; break;
                        case 4: m[i].round = v; break;
                        case 5: m[i].n = v; break;
                        case 6: m[i].done = !m[i].done; break;
                        case 7: m[i].result.forfeit[slot] = true; break;
                        default:
                                if (c.nb)
                                        by[sim_rand(&rng) % c.nb].entrant = v;
                                else
                                        c.n = v;
                                break;
                        }
                        struct tour_stage_input in = sim_input(&c);
                        struct tour_stage_next nx;
                        struct tour_stage_bracket_view bv;
                        struct tour_standings_row rows[32];     /* c.n may grow to 17 */
                        size_t dep[64];
                        int32_t top[32];
                        int32_t grp[32];
                        int r[9];
                        r[0] = tour_stage_next(&in, &nx, NULL);
                        tour_stage_next_free(&nx);
                        r[1] = tour_stage_standings(&in, rows, NULL, NULL);
                        r[2] = tour_stage_dependents(&in, i, false, dep, 64, NULL);
                        r[3] = tour_stage_bracket(&in, &bv, NULL);
                        tour_stage_bracket_free(&bv);
                        r[4] = tour_stage_top(&in, 4, top, NULL);
                        r[5] = tour_stage_top_cut(&in, 4, top, NULL);
                        r[6] = tour_stage_advance(&in, 4, TOUR_FORMAT_SINGLE_ELIM, top, NULL);
                        r[7] = tour_stage_advance(&in, 6, TOUR_FORMAT_ROUND_ROBIN, top, NULL);
                        r[8] = c.n >= 0 && c.n <= 32 ? tour_stage_group_of(&in, grp) : 0;
                        for (int k = 0; k < 9; k++)
                                assert_true(r[k] >= 0 || r[k] == -EINVAL || r[k] == -EBUSY || r[k] == -ERANGE);
                        free(m);
                        free(by);
                }
                sim_free(s);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(format_names_round_trip_and_unknown_names_are_refused),
                cmocka_unit_test(defaults_are_valid_and_as_documented),
                cmocka_unit_test(a_bad_config_is_refused_with_a_message_naming_the_field),
                cmocka_unit_test(swiss_stages_of_2_to_40_play_ceil_log2_n_rounds_with_everyone_paired_or_on_a_bye),
                cmocka_unit_test(pod_swiss_league_and_race_stages_of_3_to_40_play_their_rounds_at_tables_of_at_most_4),
                cmocka_unit_test(a_pod_swiss_of_2_under_the_bye_policy_cannot_be_seated),
                cmocka_unit_test(swiss_and_pod_swiss_of_up_to_300_finish),
                cmocka_unit_test(round_robins_of_2_to_40_pair_everyone_once_per_cycle),
                cmocka_unit_test(a_round_robin_leaves_a_dropped_entrants_matches_out_and_gives_the_opponent_a_bye),
                cmocka_unit_test(brackets_of_2_to_40_play_every_match_once_and_place_everyone),
                cmocka_unit_test(heats_play_the_nominal_plan_down_to_one_final),
                cmocka_unit_test(dropped_entrants_are_never_paired_again_in_any_format),
                cmocka_unit_test(the_same_input_gives_byte_equal_output_in_every_format),
                cmocka_unit_test(a_late_entrant_joins_round_2_of_a_pod_swiss_and_is_paired),
                cmocka_unit_test(correcting_a_round_1_swiss_result_lists_exactly_the_done_later_matches),
                cmocka_unit_test(a_swiss_stage_hands_the_last_rounds_floats_to_the_pairing),
                cmocka_unit_test(a_bracket_correction_lists_only_the_matches_whose_occupants_would_change),
                cmocka_unit_test(round_robin_corrections_invalidate_nothing),
                cmocka_unit_test(a_dropped_entrant_in_a_bracket_is_walked_over_at_its_next_match),
                cmocka_unit_test(heats_standings_rank_by_elimination_round_then_points),
                cmocka_unit_test(a_top_cut_of_a_13_player_pod_swiss_into_a_final_table_of_4_is_the_top_4),
                cmocka_unit_test(a_top_cut_swaps_a_first_round_rematch_away),
                cmocka_unit_test(bad_input_is_refused_with_a_message),
                cmocka_unit_test(corrupted_stages_are_refused_and_never_crash),
                cmocka_unit_test(a_bad_groups_config_is_refused_with_a_message_naming_the_field),
                cmocka_unit_test(groups_of_4_to_40_entrants_in_2_to_8_groups_play_every_in_group_pair_once_and_no_cross_group_pair),
                cmocka_unit_test(a_groups_stage_of_23_is_played_to_its_end_and_each_group_ranks_as_its_own_round_robin),
                cmocka_unit_test(four_groups_top_2_into_an_8_bracket_meet_winner_against_runner_up_with_group_mates_in_opposite_halves),
                cmocka_unit_test(an_advance_from_groups_of_a_count_that_is_not_a_multiple_of_the_groups_is_refused),
                cmocka_unit_test(an_advance_from_other_formats_is_the_top_cut_into_a_bracket_and_the_top_otherwise),
        };
        return cmocka_run_group_tests_name("stage", tests, NULL, NULL);
}
