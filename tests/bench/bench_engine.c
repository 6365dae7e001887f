/* bench_engine — the Crash Pilot, Crazy Pilot and Pitch Fleet engines on
 * one core.
 *
 *   - simulated full matches per second: bots play whole matches (ties,
 *     wrong calls, expiries, voids, pauses included) through the real
 *     engine, 2 to 5 seats;
 *   - replay time of a 10,000-input log: what a restart costs per match;
 *   - Crazy Pilot: simulated whole matches per second (bots at 2 to 6
 *     seats resolving their piles at once, shouts, slap races, missed
 *     slaps, resumes; 2 players send and cover cards);
 *   - Pitch Fleet: referee reports previewed and applied per second (each
 *     input of recorded 6-player games of the random legal referee applied
 *     to a copy of the state, as a referee's preview is, then to the state
 *     itself), and the replay of a whole 6-player game (eng_replay).
 *
 * References in the same run: for throughput, one copy of the game's state
 * per input (the least the runtime does for each: it applies an input to a
 * copy, match/match.h); for a replay, the log copied with memcpy (the cost
 * of merely touching it), so each figure reads as a multiple of its floor.
 *
 * Each figure is also a row of `make bench`'s report (report.h), its goal a
 * ratio to the reference, with the reason next to it: generous enough for a
 * run's noise, tight enough that work added per input (an allocation, a
 * scan of the log) shows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/crash_pilot.h"
#include "engine/crazy_pilot.h"
#include "engine/engine.h"
#include "engine/log.h"
#include "engine/pitch_fleet.h"

#include "report.h"

#define MATCHES         20000
#define CZ_MATCHES      5000
#define PF_GAMES        200
#define PF_LOG_CAP      4096
#define LOG_TARGET      10000
#define LOG_CAP         100000

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

int main(void) {
        const struct eng_game *g = eng_game_find("crash-pilot");
        struct cp_sim_params p;
        struct eng_config cfg;
        struct cp_sim_stats st;
        struct eng_error err;
        void *state = malloc(g->state_size);
        struct eng_input *log = calloc(LOG_CAP, sizeof *log);
        struct eng_record *records = calloc(LOG_CAP, sizeof *records), *copy = calloc(LOG_CAP, sizeof *copy);
        size_t inputs = 0;
        double t0, t1;

        if (!state || !log || !records || !copy)
                return 1;
        eng_config_defaults(g, &cfg);
        if (eng_config_set(g, &cfg, "reveal.pause_ms", 0, &err) < 0)
                return 1;
        cp_sim_params_default(&p);

        t0 = now_s();
        for (unsigned m = 0; m < MATCHES; m++) {
                unsigned seats = 2 + m % 4;
                if (cp_sim_match(state, &cfg, seats, m, m * 7919u, &p, NULL, 0, NULL, NULL, &st) < 0) {
                        fprintf(stderr, "match %u failed\n", m);
                        return 1;
                }
                inputs += st.inputs;
        }
        t1 = now_s();
        printf("simulated full matches: %u in %.2f s = %.0f matches/s on one core "
               "(%.1f inputs per match, %.2f M inputs/s)\n",
               MATCHES, t1 - t0, MATCHES / (t1 - t0), (double) inputs / MATCHES, inputs / (t1 - t0) / 1e6);
        /* Reference: one copy of the state per input, the least the runtime
         * does for each (it applies an input to a copy, match/match.h). */
        {
                void *spare = malloc(g->state_size);
                double c0, c1;

                if (!spare)
                        return 1;
                c0 = now_s();
                for (size_t i = 0; i < inputs; i++) {
                        memcpy(spare, state, g->state_size);
                        __asm__ volatile("" ::: "memory");
                }
                c1 = now_s();
                printf("reference: one %zu-byte copy of the state per input: %.2f M inputs/s; "
                       "the engine runs at %.2f of it\n",
                       g->state_size, inputs / (c1 - c0) / 1e6, (c1 - c0) / (t1 - t0));
                /* Per input a bot decides and the engine judges, deals and
                 * scores: allowed up to 100 copies of the state's 1,272
                 * bytes (today about 30). */
                bench_report("engine.crash_pilot.matches_per_s", "Crash Pilot, simulated whole matches on one core",
                             "matches/s", MATCHES / (t1 - t0), MATCHES / (c1 - c0), "one state copy per input",
                             BENCH_GOAL_RATIO_MIN, 0.01);
                free(spare);
        }

        /* a long log: a two-seat table that mostly lets cards expire and a
         * referee who voids most calls stretch a match past 10,000 inputs */
        p.expire_pct = 90;
        p.tie_pct = 4;
        p.void_pct = 90;
        p.max_inputs = LOG_CAP;
        size_t n = 0;
        uint64_t seed = 1;
        for (; seed < 1000 && n < LOG_TARGET; seed++) {
                if (cp_sim_match(state, &cfg, 2, seed, seed, &p, log, LOG_CAP, NULL, NULL, &st) == 0)
                        n = st.inputs;
        }
        seed--;
        if (n < LOG_TARGET) {
                printf("replay: no simulated match reached %d inputs (longest %zu); replaying that\n",
                       LOG_TARGET, n);
        }
        uint64_t live_hash = g->hash(state);
        const int reps = 50;
        size_t refused = 0;
        struct eng_setup setup = { .game = g, .cfg = &cfg, .n_seats = 2, .seed = seed };
        for (size_t i = 0; i < n; i++)
                records[i].in = log[i];
        t0 = now_s();
        for (int r = 0; r < reps; r++)
                if (eng_replay(&setup, state, records, n, &refused) < 0)
                        return 1;
        t1 = now_s();
        double replay_ms = (t1 - t0) / reps * 1e3;
        t0 = now_s();
        for (int r = 0; r < reps * 20; r++) {
                memcpy(copy, records, n * sizeof *records);
                __asm__ volatile("" ::: "memory");
        }
        double copy_ms = (now_s() - t0) / (reps * 20) * 1e3;
        printf("replay of a %zu-input log: %.2f ms (%.2f M inputs/s), hash %s the live one; "
               "reference memcpy of the log: %.3f ms\n",
               n, replay_ms, n / replay_ms / 1e3, g->hash(state) == live_hash ? "equals" : "DIFFERS FROM",
               copy_ms);
        /* Each input is applied to the state (a card, a call, a score)
         * where the copy only moves its bytes: within 20x of the copy
         * (today about 8). */
        bench_report("engine.crash_pilot.replay_ms", "Crash Pilot, replay of a 10,000-input log (a restart, per match)",
                     "ms", replay_ms, copy_ms, "memcpy of the log", BENCH_GOAL_RATIO_MAX, 20);
        /* Crazy Pilot: whole simulated matches, 2 to 6 seats. */
        {
                const struct eng_game *cz = eng_game_find("crazy-pilot");
                struct cz_sim_params czp;
                struct cz_sim_stats czs;
                struct eng_config czc;
                void *czst = cz ? malloc(cz->state_size) : NULL;
                size_t cz_inputs = 0;

                if (!czst)
                        return 1;
                eng_config_defaults(cz, &czc);
                cz_sim_params_default(&czp);
                t0 = now_s();
                for (unsigned m = 0; m < CZ_MATCHES; m++) {
                        unsigned seats = 2 + m % 5;

                        if (cz_sim_match(czst, &czc, seats, m, m * 7919u, &czp, NULL, 0, NULL, NULL, &czs) < 0) {
                                fprintf(stderr, "crazy-pilot match %u failed\n", m);
                                return 1;
                        }
                        cz_inputs += czs.inputs;
                }
                t1 = now_s();
                printf("crazy pilot, simulated whole matches: %u in %.2f s = %.0f matches/s on one core "
                       "(%.1f inputs per match, %.2f M inputs/s, a %zu-byte state)\n",
                       CZ_MATCHES, t1 - t0, CZ_MATCHES / (t1 - t0), (double) cz_inputs / CZ_MATCHES,
                       cz_inputs / (t1 - t0) / 1e6, cz->state_size);
                /* Reference: one copy of its state per input, as above. */
                void *czspare = malloc(cz->state_size);
                double c0, c1;

                if (!czspare)
                        return 1;
                c0 = now_s();
                for (size_t i = 0; i < cz_inputs; i++) {
                        memcpy(czspare, czst, cz->state_size);
                        __asm__ volatile("" ::: "memory");
                }
                c1 = now_s();
                printf("reference: one %zu-byte copy of the state per input: %.2f M inputs/s; "
                       "the engine runs at %.2f of it\n",
                       cz->state_size, cz_inputs / (c1 - c0) / 1e6, (c1 - c0) / (t1 - t0));
                /* The same rule as Crash Pilot's: the bots and the engine
                 * may cost up to 100 copies of the state per input. */
                bench_report("engine.crazy_pilot.matches_per_s", "Crazy Pilot, simulated whole matches on one core",
                             "matches/s", CZ_MATCHES / (t1 - t0), CZ_MATCHES / (c1 - c0), "one state copy per input",
                             BENCH_GOAL_RATIO_MIN, 0.01);
                free(czspare);
                free(czst);
        }
        /* Pitch Fleet: a referee's reports previewed and applied; a whole
         * 6-player game replayed. */
        {
                const struct eng_game *pf = eng_game_find("pitch-fleet");
                struct pf_sim_params pfp;
                struct pf_sim_stats pfs;
                struct eng_config pfc;
                struct eng_out out;
                void *live = pf ? malloc(pf->state_size) : NULL, *view = pf ? malloc(pf->state_size) : NULL;
                struct eng_input *pflog = calloc(PF_LOG_CAP, sizeof *pflog);
                struct eng_record *pfrec = calloc(PF_LOG_CAP, sizeof *pfrec), *pfcopy = calloc(PF_LOG_CAP, sizeof *pfrec);
                size_t reports = 0, replays = 0, replayed = 0;
                double preview_s = 0, replay_s = 0;

                if (!live || !view || !pflog || !pfrec || !pfcopy)
                        return 1;
                eng_config_defaults(pf, &pfc);
                pf_sim_params_default(&pfp);
                for (unsigned m = 0; m < PF_GAMES; m++) {
                        struct eng_setup pfsetup = { .game = pf, .cfg = &pfc, .n_seats = 6, .seed = m };
                        size_t pfrefused = 0;

                        if (pf_sim_match(live, &pfc, 6, m, m * 7919u, &pfp, pflog, PF_LOG_CAP, NULL, NULL, &pfs) < 0) {
                                fprintf(stderr, "pitch-fleet game %u failed\n", m);
                                return 1;
                        }
                        /* Each report: previewed on a copy, then applied. */
                        pf->create(live, &pfc, NULL, 6, m);
                        t0 = now_s();
                        for (size_t i = 0; i < pfs.inputs; i++) {
                                memcpy(view, live, pf->state_size);
                                pf->apply(view, &pflog[i], &out);
                                pf->apply(live, &pflog[i], &out);
                                pfrec[i] = (struct eng_record) { .in = pflog[i], .refusal = out.refusal };
                        }
                        preview_s += now_s() - t0;
                        reports += pfs.inputs;
                        t0 = now_s();
                        if (eng_replay(&pfsetup, view, pfrec, pfs.inputs, &pfrefused) < 0 ||
                            pf->hash(view) != pf->hash(live)) {
                                fprintf(stderr, "pitch-fleet game %u: the replay differs\n", m);
                                return 1;
                        }
                        replay_s += now_s() - t0;
                        replays++;
                        replayed += pfs.inputs;
                }
                printf("pitch fleet, referee reports previewed and applied: %.0f reports/s on one core "
                       "(%zu reports of %u 6-player games, a %zu-byte state copied for each preview)\n",
                       reports / preview_s, reports, PF_GAMES, pf->state_size);
                /* References: a copy of the state per report (what a
                 * preview costs before it applies anything), and the
                 * games' records copied with memcpy. */
                double c0 = now_s();
                for (size_t i = 0; i < reports; i++) {
                        memcpy(view, live, pf->state_size);
                        __asm__ volatile("" ::: "memory");
                }
                double copy_s = now_s() - c0;
                c0 = now_s();
                for (size_t r = 0; r < replays; r++) {
                        memcpy(pfcopy, pfrec, (size_t) ((double) replayed / replays) * sizeof *pfrec);
                        __asm__ volatile("" ::: "memory");
                }
                double log_s = now_s() - c0;
                /* and the state written once, as create() must */
                c0 = now_s();
                for (size_t r = 0; r < replays; r++) {
                        memcpy(view, live, pf->state_size);
                        __asm__ volatile("" ::: "memory");
                }
                double state_s = now_s() - c0;
                printf("pitch fleet, replay of a whole 6-player game: %.3f ms (%.0f inputs a game), hash equals "
                       "the live one\n", replay_s / replays * 1e3, (double) replayed / replays);
                printf("reference: one %zu-byte copy of the state per report: %.0f reports/s; memcpy of a game's "
                       "records and one copy of the state: %.4f ms\n", pf->state_size, reports / copy_s,
                       (log_s + state_s) / replays * 1e3);
                /* A report is the copy plus two applies (the preview's and
                 * the state's): the copy should weigh about as much as the
                 * applies, so at least a quarter of the copy's rate. */
                bench_report("engine.pitch_fleet.reports_per_s", "Pitch Fleet, referee reports previewed and applied",
                             "reports/s", reports / preview_s, reports / copy_s, "one state copy per report",
                             BENCH_GOAL_RATIO_MIN, 0.25);
                /* A replay creates the game (writes its 28 KB state) and
                 * applies each input once; the floor is writing the state
                 * once and reading the log.  As for Crash Pilot, within 20x
                 * of that. */
                bench_report("engine.pitch_fleet.replay_ms", "Pitch Fleet, replay of a whole 6-player game", "ms",
                             replay_s / replays * 1e3, (log_s + state_s) / replays * 1e3,
                             "memcpy of the records and the state", BENCH_GOAL_RATIO_MAX, 20);
                free(pfcopy);
                free(live);
                free(view);
                free(pflog);
                free(pfrec);
        }
        free(state);
        free(log);
        free(records);
        free(copy);
        return 0;
}
