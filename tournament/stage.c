/* tournament/stage.c — one stage as a pure function of (config, entrants,
 * stored matches, stored byes).  See stage.h for the contract and
 * docs/formats/stages.md for the rules.
 *
 * Every public call opens a struct stage: it checks the config and the
 * input, groups the matches by round and, for brackets, rebuilds the graph
 * and settles it (stored results and walkovers, layer by layer).  The call
 * then reads what it needs and closes the stage.  Nothing survives a call,
 * which is what makes a correction, a drop or a restart one more call. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tournament/groups.h"
#include "tournament/heats.h"
#include "tournament/round_robin.h"
#include "tournament/stage.h"
#include "tournament/swiss.h"

static const char *const stage_format_names[] = {
        [TOUR_FORMAT_SINGLE_ELIM] = "single_elimination",
        [TOUR_FORMAT_DOUBLE_ELIM] = "double_elimination",
        [TOUR_FORMAT_ROUND_ROBIN] = "round_robin",
        [TOUR_FORMAT_SWISS] = "swiss",
        [TOUR_FORMAT_POD_SWISS] = "pod_swiss",
        [TOUR_FORMAT_LEAGUE] = "league",
        [TOUR_FORMAT_HEATS] = "heats",
        [TOUR_FORMAT_RACE] = "race",
        [TOUR_FORMAT_GROUPS] = "groups",
};

#define STAGE_N_FORMATS ((int) (sizeof stage_format_names / sizeof stage_format_names[0]))

const char *tour_format_name(enum tour_format f) {
        if ((int) f < TOUR_FORMAT_SINGLE_ELIM || (int) f >= STAGE_N_FORMATS)
                return NULL;
        return stage_format_names[f];
}

int tour_format_from_name(const char *name, enum tour_format *ret_format) {
        if (!name || !ret_format)
                return -EINVAL;
        for (int f = TOUR_FORMAT_SINGLE_ELIM; f < STAGE_N_FORMATS; f++)
                if (strcmp(name, stage_format_names[f]) == 0) {
                        *ret_format = (enum tour_format) f;
                        return 0;
                }
        return -EINVAL;
}

__attribute__((format(printf, 2, 3)))
static int stage_fail(struct tour_stage_error *e, const char *fmt, ...) {
        if (e) {
                va_list ap;
                va_start(ap, fmt);
                vsnprintf(e->text, sizeof e->text, fmt, ap);
                va_end(ap);
        }
        return -EINVAL;
}

bool tour_format_bracket(enum tour_format f) {
        return f == TOUR_FORMAT_SINGLE_ELIM || f == TOUR_FORMAT_DOUBLE_ELIM;
}

bool tour_format_round_based(enum tour_format f) {
        switch (f) {
        case TOUR_FORMAT_SWISS:
        case TOUR_FORMAT_POD_SWISS:
        case TOUR_FORMAT_LEAGUE:
        case TOUR_FORMAT_RACE:
        case TOUR_FORMAT_HEATS:
                return true;
        default:
                return false;
        }
}

/* Formats paired one round at a time from a snapshot (swiss.h, pods.h). */
static bool stage_is_snapshot(enum tour_format f) {
        return f == TOUR_FORMAT_SWISS || f == TOUR_FORMAT_POD_SWISS || f == TOUR_FORMAT_LEAGUE ||
               f == TOUR_FORMAT_RACE;
}

bool tour_format_takes_late_entries(enum tour_format f) {
        /* a snapshot format re-pairs from whoever is in at each round;
         * nothing else can seat an entrant its structure did not count */
        return stage_is_snapshot(f);
}

static void stage_set_tiebreaks(struct tour_stage_config *c, int n, const enum tour_standings_tb *tb) {
        for (int i = 0; i < n; i++)
                c->tiebreaks[i] = tb[i];
        c->n_tiebreaks = n;
}

void tour_stage_config_default(enum tour_format f, struct tour_stage_config *ret_cfg) {
        static const enum tour_standings_tb bracket_tb[] = { TOUR_TB_BUCHHOLZ };
        static const enum tour_standings_tb rr_tb[] = { TOUR_TB_DIRECT_ENCOUNTER, TOUR_TB_SONNEBORN_BERGER };
        static const enum tour_standings_tb swiss_tb[] = { TOUR_TB_BUCHHOLZ, TOUR_TB_SONNEBORN_BERGER };
        static const enum tour_standings_tb table_tb[] = { TOUR_TB_PLACEMENT_AVG, TOUR_TB_SEAT_ADJUSTED };
        static const enum tour_standings_tb heats_tb[] = { TOUR_TB_PLACEMENT_AVG };
        struct tour_stage_config *c = ret_cfg;

        if (!c)
                return;
        memset(c, 0, sizeof *c);
        c->format = f;
        switch (f) {
        case TOUR_FORMAT_SINGLE_ELIM:
        case TOUR_FORMAT_DOUBLE_ELIM:
                tour_points_defaults_wdl(&c->points);
                /* a true double elimination: nobody is out after one loss,
                 * the winners-bracket finalist included */
                c->bracket.grand_final = f == TOUR_FORMAT_DOUBLE_ELIM ? TOUR_GRAND_FINAL_DOUBLE
                                                                      : TOUR_GRAND_FINAL_NONE;
                stage_set_tiebreaks(c, 1, bracket_tb);
                break;
        case TOUR_FORMAT_ROUND_ROBIN:
        case TOUR_FORMAT_GROUPS:
                /* a group is a round robin: the same points and tie-breaks;
                 * groups 0 and draw false (the snake) come with the memset */
                tour_points_defaults_wdl(&c->points);
                stage_set_tiebreaks(c, 2, rr_tb);
                break;
        case TOUR_FORMAT_SWISS:
                tour_points_defaults_wdl(&c->points);
                stage_set_tiebreaks(c, 2, swiss_tb);
                break;
        case TOUR_FORMAT_POD_SWISS:
        case TOUR_FORMAT_LEAGUE:
        case TOUR_FORMAT_RACE:
        case TOUR_FORMAT_HEATS:
                tour_points_defaults_placement(&c->points);
                c->table_size = TOUR_STAGE_DEFAULT_TABLE;
                c->pod_policy = TOUR_PODS_BYE;
                /* neutral: what an average seat at a full table earns
                 * under n - rank, (0 + 1 + ... + (k-1)) / k */
                c->points.bye = (TOUR_STAGE_DEFAULT_TABLE - 1) / 2.0;
                if (f == TOUR_FORMAT_HEATS) {
                        c->advance = TOUR_STAGE_DEFAULT_ADVANCE;
                        stage_set_tiebreaks(c, 1, heats_tb);
                } else
                        stage_set_tiebreaks(c, 2, table_tb);
                break;
        default:
                break;
        }
}

/* The groups of a groups stage of n (no check: callers have checked). */
static int stage_groups(const struct tour_stage_config *cfg, int n) {
        int g;

        if (cfg->groups > 0)
                return cfg->groups;
        g = (n + TOUR_STAGE_DEFAULT_GROUP_SIZE - 1) / TOUR_STAGE_DEFAULT_GROUP_SIZE;
        return g < 2 ? 2 : g > TOUR_GROUPS_MAX_GROUPS ? TOUR_GROUPS_MAX_GROUPS : g;
}

int tour_stage_config_check(const struct tour_stage_config *cfg, int n_entrants,
                            struct tour_stage_error *ret_err) {
        struct tour_points_error pe;
        const char *name;
        int lo = 1, hi = TOUR_PAIR_MAX_N, k;

        if (ret_err)
                ret_err->text[0] = '\0';
        if (!cfg)
                return stage_fail(ret_err, "cfg: missing");
        name = tour_format_name(cfg->format);
        if (!name)
                return stage_fail(ret_err, "format: unknown (%d)", (int) cfg->format);
        if (tour_format_bracket(cfg->format)) {
                lo = 2;
                hi = TOUR_BRACKET_MAX_ENTRANTS;
        } else if (cfg->format == TOUR_FORMAT_ROUND_ROBIN) {
                lo = 2;
                hi = TOUR_ROUND_ROBIN_MAX_ENTRANTS;
        } else if (cfg->format == TOUR_FORMAT_GROUPS) {
                /* two groups of two; the whole field no larger than one
                 * round robin may be */
                lo = 4;
                hi = TOUR_ROUND_ROBIN_MAX_ENTRANTS;
        } else if (cfg->format == TOUR_FORMAT_HEATS)
                hi = TOUR_HEATS_MAX_N;
        if (n_entrants < lo || n_entrants > hi)
                return stage_fail(ret_err, "n_entrants: must be %d to %d for %s (got %d)", lo, hi, name,
                                  n_entrants);
        if (cfg->rounds < 0 || cfg->rounds > TOUR_STAGE_MAX_ROUNDS)
                return stage_fail(ret_err, "rounds: must be 0 (the default) to %d", TOUR_STAGE_MAX_ROUNDS);
        if (cfg->rounds > 0 && !stage_is_snapshot(cfg->format))
                return stage_fail(ret_err, "rounds: must be 0 for %s (its structure fixes the rounds)", name);
        k = cfg->table_size;
        switch (cfg->format) {
        case TOUR_FORMAT_POD_SWISS:
        case TOUR_FORMAT_LEAGUE:
                if (k < TOUR_PODS_MIN_K || k > TOUR_PODS_MAX_K)
                        return stage_fail(ret_err, "table_size: must be %d to %d for %s", TOUR_PODS_MIN_K,
                                          TOUR_PODS_MAX_K, name);
                if (cfg->pod_policy != TOUR_PODS_BYE && cfg->pod_policy != TOUR_PODS_BIG_POD &&
                    cfg->pod_policy != TOUR_PODS_SMALL_PODS)
                        return stage_fail(ret_err, "pod_policy: unknown (%d)", (int) cfg->pod_policy);
                break;
        case TOUR_FORMAT_HEATS:
        case TOUR_FORMAT_RACE:
                if (k < 2 || k > TOUR_MAX_SEATS)
                        return stage_fail(ret_err, "table_size: must be 2 to %d for %s", TOUR_MAX_SEATS, name);
                /* Heats of 2 split an odd field into pairs and a heat of one,
                 * which would go out without playing: a field of duels is a
                 * single elimination.  From 3 up, balanced heats never hold
                 * one entrant (ceil(m/k) heats of m entrants, m > k). */
                if (cfg->format == TOUR_FORMAT_HEATS && k < 3)
                        return stage_fail(ret_err, "table_size: must be 3 to %d for heats (heats of 2 are a "
                                          "single_elimination)", TOUR_MAX_SEATS);
                if (cfg->format == TOUR_FORMAT_HEATS && (cfg->advance < 1 || cfg->advance >= k))
                        return stage_fail(ret_err, "advance: must be 1 to table_size - 1 (%d) for heats", k - 1);
                break;
        case TOUR_FORMAT_GROUPS:
                if (cfg->groups != 0 && (cfg->groups < 2 || cfg->groups > TOUR_GROUPS_MAX_GROUPS))
                        return stage_fail(ret_err, "groups: must be 0 (about %d a group) or 2 to %d",
                                          TOUR_STAGE_DEFAULT_GROUP_SIZE, TOUR_GROUPS_MAX_GROUPS);
                /* "n_entrants" in the text: the daemon checks a config
                 * before the field is known and lets this one pass */
                if (n_entrants < 2 * stage_groups(cfg, n_entrants))
                        return stage_fail(ret_err, "groups: %d groups need at least %d entrants (n_entrants is %d)",
                                          stage_groups(cfg, n_entrants), 2 * stage_groups(cfg, n_entrants),
                                          n_entrants);
                break;
        case TOUR_FORMAT_DOUBLE_ELIM:
                if (cfg->bracket.grand_final != TOUR_GRAND_FINAL_NONE &&
                    cfg->bracket.grand_final != TOUR_GRAND_FINAL_SIMPLE &&
                    cfg->bracket.grand_final != TOUR_GRAND_FINAL_DOUBLE)
                        return stage_fail(ret_err, "bracket.grand_final: unknown (%d)",
                                          (int) cfg->bracket.grand_final);
                break;
        default:
                break;
        }
        if (tour_points_validate(&cfg->points, &pe) < 0)
                return stage_fail(ret_err, "points.%s: %s", pe.field, pe.message);
        if (cfg->n_tiebreaks < 0 || cfg->n_tiebreaks > TOUR_STANDINGS_MAX_TIEBREAKS)
                return stage_fail(ret_err, "n_tiebreaks: must be 0 to %d", TOUR_STANDINGS_MAX_TIEBREAKS);
        for (int i = 0; i < cfg->n_tiebreaks; i++)
                if (!tour_standings_tb_name(cfg->tiebreaks[i]))
                        return stage_fail(ret_err, "tiebreaks[%d]: unknown (%d)", i, (int) cfg->tiebreaks[i]);
        return 0;
}

/* The stage being read by one call.  Invariant after stage_open() succeeds:
 * the input is consistent with the format; order[] lists the matches by
 * (round, index) and round_start[r]..round_start[r+1] are round r's
 * (rounds 1..last_round; brackets use the graph depth as the round); in a
 * bracket every stored match is READY or DONE in states[] with the stored
 * entrants as its occupants. */
struct stage {
        const struct tour_stage_input   *in;
        const struct tour_stage_config  *cfg;
        int                             n;
        int                             last_round;
        bool                            all_done;
        size_t                          *order;
        size_t                          *round_start;
        /* brackets */
        struct tour_bracket             *b;
        int                             *depth;         /* per graph match */
        int                             *stored;        /* per graph match: stored index or -1 */
        int8_t                          *outcome;       /* per graph match, walkovers included */
        bool                            *walkover;      /* per graph match */
        struct tour_bracket_state       *states;        /* per graph match */
        int                             *place;         /* per entrant */
        /* round robin (one group) and groups: members[group_start[g] ..
         * group_start[g+1]) are group g's entrants in seeding order */
        int                             n_groups;
        int                             *group;         /* per entrant */
        int32_t                         *members;       /* n */
        int                             *group_start;   /* n_groups + 1 */
};

static void stage_close(struct stage *st) {
        free(st->order);
        free(st->round_start);
        tour_bracket_free(st->b);
        free(st->depth);
        free(st->stored);
        free(st->outcome);
        free(st->walkover);
        free(st->states);
        free(st->place);
        free(st->group);
        free(st->members);
        free(st->group_start);
        memset(st, 0, sizeof *st);
}

static int stage_round_of(const struct stage *st, size_t i) {
        const struct tour_stage_match *m = &st->in->matches[i];
        return st->b ? st->depth[m->bracket_id] : m->round;
}

static int stage_cmp_size(const void *x, const void *y) {
        size_t a = *(const size_t *) x, b = *(const size_t *) y;
        return a < b ? -1 : a > b;
}

/* One stored match on its own: shape, entrants, result. */
static int stage_check_match(const struct stage *st, size_t i, struct tour_stage_error *err) {
        const struct tour_stage_match *m = &st->in->matches[i];
        struct tour_points_error pe;

        if (m->n < 1 || m->n > TOUR_MAX_SEATS)
                return stage_fail(err, "matches[%zu].n: must be 1 to %d", i, TOUR_MAX_SEATS);
        if (m->round < 1 || m->round > TOUR_STAGE_MAX_ROUNDS)
                return stage_fail(err, "matches[%zu].round: must be 1 to %d", i, TOUR_STAGE_MAX_ROUNDS);
        for (int s = 0; s < m->n; s++) {
                if (m->entrant[s] < 0 || m->entrant[s] >= st->n)
                        return stage_fail(err, "matches[%zu].entrant[%d]: %d is not an entrant (0..%d)", i, s,
                                          (int) m->entrant[s], st->n - 1);
                for (int t = 0; t < s; t++)
                        if (m->entrant[t] == m->entrant[s])
                                return stage_fail(err, "matches[%zu].entrant[%d]: entrant %d twice", i, s,
                                                  (int) m->entrant[s]);
        }
        if (tour_format_bracket(st->cfg->format)) {
                if (m->n != 2)
                        return stage_fail(err, "matches[%zu].n: a bracket match has 2 entrants", i);
                if (m->bracket_id < 0 || m->bracket_id >= st->b->n_matches)
                        return stage_fail(err, "matches[%zu].bracket_id: %d is not a match of the bracket (0..%d)",
                                          i, m->bracket_id, st->b->n_matches - 1);
        } else if (m->bracket_id != -1)
                return stage_fail(err, "matches[%zu].bracket_id: must be -1 for %s", i,
                                  tour_format_name(st->cfg->format));
        if (!m->done)
                return 0;
        if (m->result.n != m->n)
                return stage_fail(err, "matches[%zu].result.n: %d, the match has %d", i, m->result.n, m->n);
        if (m->result.round != m->round)
                return stage_fail(err, "matches[%zu].result.round: %d, the match is round %d", i,
                                  m->result.round, m->round);
        for (int s = 0; s < m->n; s++)
                if (m->result.entrant[s] != m->entrant[s])
                        return stage_fail(err, "matches[%zu].result.entrant[%d]: differs from the match's", i, s);
        if (tour_points_check_result(&m->result, &pe) < 0)
                return stage_fail(err, "matches[%zu].result.%s: %s", i, pe.field, pe.message);
        return 0;
}

/* Graph depth of each match: 1 + the deepest played match feeding it (a
 * bye or void match adds nothing).  An entrant's played matches have
 * strictly increasing depth, so depth serves as the round standings need
 * (two matches of one entrant never share it). */
static int stage_bracket_depth(const struct tour_bracket *b, int *depth) {
        int max = 1;

        for (int i = 0; i < b->n_matches; i++) {
                const struct tour_bracket_match *x = &b->match[i];
                int d = 0;
                for (int s = 0; s < 2; s++)
                        if ((x->slot[s].source == TOUR_SRC_WINNER || x->slot[s].source == TOUR_SRC_LOSER) &&
                            depth[x->slot[s].ref] > d)
                                d = depth[x->slot[s].ref];
                if (x->part == TOUR_PART_GRAND_FINAL_RESET && i > 0)
                        d = depth[i - 1];
                depth[i] = (x->empty[0] || x->empty[1]) ? d : d + 1;
                if (depth[i] > max)
                        max = depth[i];
        }
        return max;
}

static int stage_new_bracket(const struct tour_stage_config *cfg, int n, struct tour_bracket **ret) {
        if (cfg->format == TOUR_FORMAT_SINGLE_ELIM)
                return tour_single_elim_new(n, &cfg->bracket, ret);
        return tour_double_elim_new(n, &cfg->bracket, ret);
}

/* The slot of the stored result's winner, or -EINVAL: a bracket match
 * needs exactly one winner (no draw, no double forfeit). */
static int stage_winner_slot(const struct stage *st, size_t i, struct tour_stage_error *err) {
        const struct tour_stage_match *m = &st->in->matches[i];

        for (int s = 0; s < 2; s++)
                if (tour_points_outcome(&m->result, s) == TOUR_POINTS_WON)
                        return s;
        return stage_fail(err, "matches[%zu].result: a bracket match needs a winner (no draw, no double forfeit)", i);
}

/* Applies stored results and walkovers to the graph, one layer of READY
 * matches per pass (a result can only be applied once its match's sides
 * are known, and a walkover can make the next match READY), until nothing
 * changes; then checks every stored match against the occupants. */
static int stage_settle_bracket(struct stage *st, struct tour_stage_error *err) {
        const struct tour_stage_input *in = st->in;
        const struct tour_bracket *b = st->b;
        int M = b->n_matches, r;

        memset(st->outcome, TOUR_BRACKET_UNPLAYED, (size_t) M);
        for (bool changed = true; changed;) {
                changed = false;
                r = tour_bracket_resolve(b, st->outcome, st->states, NULL);
                if (r < 0)
                        return stage_fail(err, "matches: the bracket does not resolve");
                for (int id = 0; id < M; id++) {
                        const struct tour_bracket_state *s = &st->states[id];
                        int k = st->stored[id];
                        if (s->status != TOUR_MATCH_READY)
                                continue;
                        if (k >= 0 && in->matches[k].done) {
                                const struct tour_stage_match *m = &in->matches[k];
                                if (m->entrant[0] != s->occupant[0] || m->entrant[1] != s->occupant[1])
                                        return stage_fail(err, "matches[%d].entrant: %d v %d, but bracket match %d "
                                                          "(%s) is %d v %d", k, (int) m->entrant[0],
                                                          (int) m->entrant[1], id, b->match[id].label,
                                                          (int) s->occupant[0], (int) s->occupant[1]);
                                int w = stage_winner_slot(st, (size_t) k, err);
                                if (w < 0)
                                        return w;
                                st->outcome[id] = (int8_t) w;
                                changed = true;
                                continue;
                        }
                        bool a0 = in->entrants[s->occupant[0]].active, a1 = in->entrants[s->occupant[1]].active;
                        if (a0 && a1)
                                continue;
                        /* both out: the better seed goes on, to be walked
                         * over in turn at its next match */
                        st->outcome[id] = (int8_t) (a0 ? 0 : a1 ? 1 : s->occupant[0] < s->occupant[1] ? 0 : 1);
                        st->walkover[id] = true;
                        changed = true;
                }
        }
        r = tour_bracket_resolve(b, st->outcome, st->states, st->place);
        if (r < 0)
                return stage_fail(err, "matches: the bracket does not resolve");
        for (size_t i = 0; i < in->n_matches; i++) {
                const struct tour_stage_match *m = &in->matches[i];
                const struct tour_bracket_state *s = &st->states[m->bracket_id];
                if (s->status != TOUR_MATCH_READY && s->status != TOUR_MATCH_DONE)
                        return stage_fail(err, "matches[%zu].bracket_id: bracket match %d (%s) cannot be played "
                                          "(its sides are not known, or it is a bye)", i, m->bracket_id,
                                          b->match[m->bracket_id].label);
                if (m->entrant[0] != s->occupant[0] || m->entrant[1] != s->occupant[1])
                        return stage_fail(err, "matches[%zu].entrant: %d v %d, but bracket match %d (%s) is %d v %d",
                                          i, (int) m->entrant[0], (int) m->entrant[1], m->bracket_id,
                                          b->match[m->bracket_id].label, (int) s->occupant[0],
                                          (int) s->occupant[1]);
        }
        return 0;
}

/* The groups of entrants 0..n-1 under cfg into group[]: round robin one
 * group, groups the snake or the seeded draw.  Returns the count. */
static int stage_split(const struct tour_stage_config *cfg, int n, int *group) {
        int g, r;

        if (cfg->format != TOUR_FORMAT_GROUPS) {
                for (int e = 0; e < n; e++)
                        group[e] = 0;
                return 1;
        }
        g = stage_groups(cfg, n);
        r = cfg->draw ? tour_groups_draw(n, g, cfg->seed, group) : tour_groups_snake(n, g, group);
        return r < 0 ? r : g;
}

/* Fills st->group, members and group_start (a counting sort by group,
 * stable, so each group keeps the seeding order: its Berger numbers). */
static int stage_open_groups(struct stage *st) {
        int n = st->n, g;
        int *fill;

        st->group = malloc((size_t) n * sizeof *st->group);
        st->members = malloc((size_t) n * sizeof *st->members);
        if (!st->group || !st->members)
                return -ENOMEM;
        g = stage_split(st->cfg, n, st->group);
        if (g < 0)
                return g;
        st->n_groups = g;
        st->group_start = calloc((size_t) g + 1, sizeof *st->group_start);
        fill = malloc(((size_t) g + 1) * sizeof *fill);
        if (!st->group_start || !fill) {
                free(fill);
                return -ENOMEM;
        }
        for (int e = 0; e < n; e++)
                st->group_start[st->group[e] + 1]++;
        for (int k = 0; k < g; k++)
                st->group_start[k + 1] += st->group_start[k];
        memcpy(fill, st->group_start, ((size_t) g + 1) * sizeof *fill);
        for (int e = 0; e < n; e++)
                st->members[fill[st->group[e]]++] = e;
        free(fill);
        return 0;
}

/* Stage round `round` of a round robin or groups stage: Berger round
 * `round` of every group whose schedule has that many rounds (a smaller
 * group's schedule can end earlier: its entrants then sit the last rounds
 * out, without a bye), group after group, renumbered to stage entrants and
 * tabled 1.. across the groups.  tp has room for n/2 pairings, byes for
 * one per group.  Returns the number of pairings. */
static int stage_schedule_round(const struct stage *st, int round, struct tour_pairing *tp, struct tour_bye *byes,
                                int *ret_nbyes) {
        int cycles = st->cfg->double_round_robin ? 2 : 1, k = 0;

        *ret_nbyes = 0;
        for (int grp = 0; grp < st->n_groups; grp++) {
                int a = st->group_start[grp], size = st->group_start[grp + 1] - a;
                int total = tour_round_robin_rounds(size, cycles), c;
                struct tour_bye bye;

                if (total < 0)
                        return total;
                if (round > total)
                        continue;
                c = tour_round_robin_round(size, cycles, round, tp + k, &bye);
                if (c < 0)
                        return c;
                for (int t = k; t < k + c; t++) {
                        for (int s = 0; s < tp[t].n; s++)
                                tp[t].entrant[s] = st->members[a + tp[t].entrant[s]];
                        tp[t].table = t + 1;
                }
                if (bye.entrant != TOUR_NONE)
                        byes[(*ret_nbyes)++] = (struct tour_bye) { round, st->members[a + bye.entrant] };
                k += c;
        }
        return k;
}

/* Round robin and groups: each stored match must be a pairing of its
 * stage round, in the same seats, and the stored rounds within the
 * schedule.  This is what catches an entrant appended after the start (the
 * schedule, and for groups the split, of n+1 is a different one). */
static int stage_check_schedule(struct stage *st, struct tour_stage_error *err) {
        int n = st->n, total = tour_stage_rounds(st->cfg, n), nb;
        struct tour_pairing *p = malloc((size_t) (n / 2 + 1) * sizeof *p);
        struct tour_bye *by = malloc((size_t) st->n_groups * sizeof *by);
        int32_t *opp = malloc((size_t) n * sizeof *opp);
        int r = 0;

        if (!p || !by || !opp) {
                r = -ENOMEM;
                goto out;
        }
        if (total < 0) {
                r = total;
                goto out;
        }
        if (st->last_round > total) {
                r = stage_fail(err, "matches: round %d is beyond the %d rounds of the schedule", st->last_round,
                               total);
                goto out;
        }
        for (int round = 1; round <= st->last_round; round++) {
                int c = stage_schedule_round(st, round, p, by, &nb);
                if (c < 0) {
                        r = c;
                        goto out;
                }
                /* opp[white] = black; black and the bye stay TOUR_NONE */
                for (int e = 0; e < n; e++)
                        opp[e] = TOUR_NONE;
                for (int t = 0; t < c; t++)
                        opp[p[t].entrant[0]] = p[t].entrant[1];
                for (size_t j = st->round_start[round]; j < st->round_start[round + 1]; j++) {
                        size_t i = st->order[j];
                        const struct tour_stage_match *m = &st->in->matches[i];
                        if (m->n == 2 && opp[m->entrant[0]] == m->entrant[1])
                                continue;
                        if (st->cfg->format == TOUR_FORMAT_GROUPS)
                                r = stage_fail(err, "matches[%zu]: not a pairing of round %d of the %d groups of %d "
                                               "entrants (an entrant added after the start?)", i, round,
                                               st->n_groups, n);
                        else
                                r = stage_fail(err, "matches[%zu]: not a pairing of round %d of the round robin "
                                               "of %d (an entrant added after the start?)", i, round, n);
                        goto out;
                }
        }
out:
        free(p);
        free(by);
        free(opp);
        return r;
}

struct stage_seen {
        int     round;
        int32_t entrant;
        size_t  where;          /* match index, or n_matches + bye index */
};

static int stage_cmp_seen(const void *x, const void *y) {
        const struct stage_seen *a = x, *b = y;
        if (a->round != b->round)
                return a->round < b->round ? -1 : 1;
        if (a->entrant != b->entrant)
                return a->entrant < b->entrant ? -1 : 1;
        return a->where < b->where ? -1 : a->where > b->where;
}

/* Round formats: nobody twice in one round (two tables, or a table and a
 * bye).  Brackets get the same guarantee from the graph. */
static int stage_check_once_per_round(const struct stage *st, struct tour_stage_error *err) {
        const struct tour_stage_input *in = st->in;
        size_t total = in->n_byes, k = 0;
        struct stage_seen *s;
        int r = 0;

        for (size_t i = 0; i < in->n_matches; i++)
                total += (size_t) in->matches[i].n;
        if (total == 0)
                return 0;
        s = malloc(total * sizeof *s);
        if (!s)
                return -ENOMEM;
        for (size_t i = 0; i < in->n_matches; i++)
                for (int j = 0; j < in->matches[i].n; j++)
                        s[k++] = (struct stage_seen) { in->matches[i].round, in->matches[i].entrant[j], i };
        for (size_t i = 0; i < in->n_byes; i++)
                s[k++] = (struct stage_seen) { in->byes[i].round, in->byes[i].entrant, in->n_matches + i };
        qsort(s, k, sizeof *s, stage_cmp_seen);
        for (size_t i = 1; i < k; i++)
                if (s[i].round == s[i - 1].round && s[i].entrant == s[i - 1].entrant) {
                        size_t w = s[i].where;
                        if (w < in->n_matches)
                                r = stage_fail(err, "matches[%zu]: entrant %d plays twice in round %d", w,
                                               (int) s[i].entrant, s[i].round);
                        else
                                r = stage_fail(err, "byes[%zu]: entrant %d already plays in round %d",
                                               w - in->n_matches, (int) s[i].entrant, s[i].round);
                        break;
                }
        free(s);
        return r;
}

static int stage_open(const struct tour_stage_input *in, struct stage *st, struct tour_stage_error *err) {
        int r;

        memset(st, 0, sizeof *st);
        if (err)
                err->text[0] = '\0';
        if (!in)
                return stage_fail(err, "in: missing");
        r = tour_stage_config_check(in->cfg, in->n_entrants, err);
        if (r < 0)
                return r;
        if (!in->entrants)
                return stage_fail(err, "entrants: missing");
        if (in->n_matches && !in->matches)
                return stage_fail(err, "matches: missing (n_matches %zu)", in->n_matches);
        if (in->n_byes && !in->byes)
                return stage_fail(err, "byes: missing (n_byes %zu)", in->n_byes);
        st->in = in;
        st->cfg = in->cfg;
        st->n = in->n_entrants;
        for (int e = 0; e < st->n; e++)
                if (!isfinite(in->entrants[e].rating))
                        return stage_fail(err, "entrants[%d].rating: not a finite number", e);
        for (size_t i = 0; i < in->n_byes; i++) {
                if (in->byes[i].round < 1 || in->byes[i].round > TOUR_STAGE_MAX_ROUNDS)
                        return stage_fail(err, "byes[%zu].round: must be 1 to %d", i, TOUR_STAGE_MAX_ROUNDS);
                if (in->byes[i].entrant < 0 || in->byes[i].entrant >= st->n)
                        return stage_fail(err, "byes[%zu].entrant: %d is not an entrant", i, (int) in->byes[i].entrant);
        }
        if (in->n_byes && (tour_format_bracket(st->cfg->format) || st->cfg->format == TOUR_FORMAT_HEATS))
                return stage_fail(err, "byes: %s has no byes", tour_format_name(st->cfg->format));

        if (tour_format_bracket(st->cfg->format)) {
                int M;
                r = stage_new_bracket(st->cfg, st->n, &st->b);
                if (r < 0)
                        return r;
                M = st->b->n_matches;
                st->depth = malloc((size_t) M * sizeof *st->depth);
                st->stored = malloc((size_t) M * sizeof *st->stored);
                st->outcome = malloc((size_t) M);
                st->walkover = calloc((size_t) M, sizeof *st->walkover);
                st->states = calloc((size_t) M, sizeof *st->states);
                st->place = calloc((size_t) st->n, sizeof *st->place);
                if (!st->depth || !st->stored || !st->outcome || !st->walkover || !st->states || !st->place)
                        return -ENOMEM;
                stage_bracket_depth(st->b, st->depth);
                for (int id = 0; id < M; id++)
                        st->stored[id] = -1;
        }
        st->all_done = true;
        for (size_t i = 0; i < in->n_matches; i++) {
                r = stage_check_match(st, i, err);
                if (r < 0)
                        return r;
                if (st->b) {
                        int id = in->matches[i].bracket_id;
                        if (st->stored[id] >= 0)
                                return stage_fail(err, "matches[%zu].bracket_id: match %d is already matches[%d]",
                                                  i, id, st->stored[id]);
                        st->stored[id] = (int) i;
                }
                if (!in->matches[i].done)
                        st->all_done = false;
        }
        for (size_t i = 0; i < in->n_matches; i++)
                if (stage_round_of(st, i) > st->last_round)
                        st->last_round = stage_round_of(st, i);
        for (size_t i = 0; i < in->n_byes; i++)
                if (in->byes[i].round > st->last_round)
                        st->last_round = in->byes[i].round;

        /* matches grouped by round (a counting sort, stable by index) */
        st->round_start = calloc((size_t) st->last_round + 2, sizeof *st->round_start);
        st->order = malloc((in->n_matches ? in->n_matches : 1) * sizeof *st->order);
        if (!st->round_start || !st->order)
                return -ENOMEM;
        for (size_t i = 0; i < in->n_matches; i++)
                st->round_start[stage_round_of(st, i) + 1]++;
        for (int round = 1; round <= st->last_round + 1; round++)
                st->round_start[round] += st->round_start[round - 1];
        {
                size_t *fill = malloc(((size_t) st->last_round + 2) * sizeof *fill);
                if (!fill)
                        return -ENOMEM;
                memcpy(fill, st->round_start, ((size_t) st->last_round + 2) * sizeof *fill);
                for (size_t i = 0; i < in->n_matches; i++)
                        st->order[fill[stage_round_of(st, i)]++] = i;
                free(fill);
        }

        if (st->b)
                return stage_settle_bracket(st, err);
        r = stage_check_once_per_round(st, err);
        if (r < 0)
                return r;
        if (st->cfg->format == TOUR_FORMAT_ROUND_ROBIN || st->cfg->format == TOUR_FORMAT_GROUPS) {
                r = stage_open_groups(st);
                if (r < 0)
                        return r;
                return stage_check_schedule(st, err);
        }
        if (stage_is_snapshot(st->cfg->format)) {
                int total = tour_stage_rounds(st->cfg, st->n);
                if (total < 0)
                        return total;
                if (st->last_round > total)
                        return stage_fail(err, "matches: round %d is beyond the stage's %d rounds", st->last_round,
                                          total);
        }
        return 0;
}

int tour_stage_rounds(const struct tour_stage_config *cfg, int n_entrants) {
        struct tour_bracket *b = NULL;
        int *depth, r, n = n_entrants, k;

        r = tour_stage_config_check(cfg, n_entrants, NULL);
        if (r < 0)
                return r;
        if (cfg->rounds > 0)
                return cfg->rounds;
        k = cfg->table_size;
        switch (cfg->format) {
        case TOUR_FORMAT_SWISS:
                return tour_swiss_rounds_default(n);
        case TOUR_FORMAT_POD_SWISS:
                r = 0;
                for (long p = 1; p < n; p *= k)
                        r++;
                return r > 0 ? r : 1;
        case TOUR_FORMAT_LEAGUE:
        case TOUR_FORMAT_RACE:
                r = (n - 1 + k - 2) / (k - 1);
                return r > 0 ? r : 1;
        case TOUR_FORMAT_ROUND_ROBIN:
                return tour_round_robin_rounds(n, cfg->double_round_robin ? 2 : 1);
        case TOUR_FORMAT_GROUPS:
                /* the largest group's: sizes differ by at most one, and a
                 * schedule never gets shorter with one more entrant */
                k = stage_groups(cfg, n);
                return tour_round_robin_rounds((n + k - 1) / k, cfg->double_round_robin ? 2 : 1);
        case TOUR_FORMAT_HEATS:
                return tour_heats_plan(n, k, cfg->advance, NULL, 0);
        default:
                r = stage_new_bracket(cfg, n, &b);
                if (r < 0)
                        return r;
                depth = malloc((size_t) b->n_matches * sizeof *depth);
                if (!depth) {
                        tour_bracket_free(b);
                        return -ENOMEM;
                }
                r = stage_bracket_depth(b, depth);
                free(depth);
                tour_bracket_free(b);
                return r;
        }
}

int tour_stage_groups_count(const struct tour_stage_config *cfg, int n_entrants) {
        int r = tour_stage_config_check(cfg, n_entrants, NULL);

        if (r < 0)
                return r;
        if (cfg->format != TOUR_FORMAT_GROUPS)
                return -EINVAL;
        return stage_groups(cfg, n_entrants);
}

/* Standings over the done results exactly as standings.h computes them
 * (bracket results carry their graph depth as the round). */
static int stage_raw_standings(const struct stage *st, struct tour_standings_row *rows,
                               struct tour_stage_error *err) {
        const struct tour_stage_input *in = st->in;
        struct tour_result *res = malloc((in->n_matches ? in->n_matches : 1) * sizeof *res);
        bool *dropped = malloc((size_t) st->n * sizeof *dropped);
        struct tour_points_error pe = { { 0 } };
        size_t k = 0;
        int r;

        if (!res || !dropped) {
                free(res);
                free(dropped);
                return -ENOMEM;
        }
        for (size_t i = 0; i < in->n_matches; i++)
                if (in->matches[i].done) {
                        res[k] = in->matches[i].result;
                        res[k++].round = stage_round_of(st, i);
                }
        for (int e = 0; e < st->n; e++)
                dropped[e] = !in->entrants[e].active;
        struct tour_standings_input si = {
                .n = st->n, .dropped = dropped, .results = res, .n_results = k,
                .byes = in->byes, .n_byes = in->n_byes, .points = &st->cfg->points,
                .tiebreaks = st->cfg->tiebreaks, .n_tiebreaks = (size_t) st->cfg->n_tiebreaks,
        };
        r = tour_standings_compute(&si, rows, &pe);
        if (r == -EINVAL)
                stage_fail(err, "standings: %s: %s", pe.field, pe.message);
        free(res);
        free(dropped);
        return r;
}

/* ---- heats ------------------------------------------------------------ */

/* Heats as played so far: each round's field is the previous round's
 * advancers (tour_heats_advance, in its order) who sat at a heat of this
 * round, round 1's the round-1 participants in seed order.  Nothing but
 * the stored heats is needed, so a drop after a round was paired changes
 * nothing already stored. */
struct stage_heats {
        int32_t *field;         /* the next round's field, m entrants (n allocated) */
        int     m;
        bool    finished;
        int     *reach;         /* per entrant: last round played, 0 none */
        bool    *running;       /* per entrant: still in (in play, or advanced and active) */
        long    final_match;    /* stored index of the final, -1 until played */
};

static void stage_heats_free(struct stage_heats *h) {
        free(h->field);
        free(h->reach);
        free(h->running);
        memset(h, 0, sizeof *h);
}

static int stage_heats(const struct stage *st, struct stage_heats *h, struct tour_stage_error *err) {
        const struct tour_stage_input *in = st->in;
        int n = st->n, q = st->cfg->advance, cur_m = 0, r = 0;
        int32_t *cur = malloc((size_t) n * sizeof *cur), *next = malloc((size_t) n * sizeof *next);
        int32_t *mark = calloc((size_t) n, sizeof *mark);
        struct tour_result *res = malloc((in->n_matches ? in->n_matches : 1) * sizeof *res);

        memset(h, 0, sizeof *h);
        h->final_match = -1;
        h->field = malloc((size_t) n * sizeof *h->field);
        h->reach = calloc((size_t) n, sizeof *h->reach);
        h->running = calloc((size_t) n, sizeof *h->running);
        if (!cur || !next || !mark || !res || !h->field || !h->reach || !h->running) {
                r = -ENOMEM;
                goto out;
        }
        if (st->last_round == 0) {
                for (int e = 0; e < n; e++)
                        if (in->entrants[e].active)
                                h->field[h->m++] = e;
                goto field;
        }
        for (int round = 1; round <= st->last_round; round++) {
                size_t a = st->round_start[round], z = st->round_start[round + 1];
                int nres = 0;
                bool done = true;

                if (a == z) {
                        r = stage_fail(err, "matches: heats round %d has no heat", round);
                        goto out;
                }
                /* mark[e] = round when e sits at a heat of this round */
                for (size_t j = a; j < z; j++) {
                        const struct tour_stage_match *m = &in->matches[st->order[j]];
                        for (int s = 0; s < m->n; s++)
                                mark[m->entrant[s]] = round;
                        done = done && m->done;
                }
                if (round == 1) {
                        cur_m = 0;
                        for (int e = 0; e < n; e++)
                                if (mark[e] == 1)
                                        cur[cur_m++] = e;
                } else {
                        int k = 0, seats = 0;
                        for (int i = 0; i < cur_m; i++)
                                if (mark[next[i]] == round)
                                        cur[k++] = next[i];
                        for (size_t j = a; j < z; j++)
                                seats += in->matches[st->order[j]].n;
                        if (seats != k) {
                                r = stage_fail(err, "matches: a heat of round %d seats an entrant who did not "
                                               "advance to it", round);
                                goto out;
                        }
                        cur_m = k;
                }
                for (int i = 0; i < cur_m; i++)
                        h->reach[cur[i]] = round;
                if (!done) {
                        if (round < st->last_round) {
                                r = stage_fail(err, "matches: heats round %d is unfinished but round %d exists",
                                               round, st->last_round);
                                goto out;
                        }
                        for (int i = 0; i < cur_m; i++)
                                h->running[cur[i]] = true;
                        goto out;
                }
                for (size_t j = a; j < z; j++)
                        res[nres++] = in->matches[st->order[j]].result;
                int adv = tour_heats_advance(cur, cur_m, q, res, nres, next);
                if (adv < 0) {
                        r = stage_fail(err, "matches: the heats of round %d do not hold its field exactly once",
                                       round);
                        goto out;
                }
                if (adv == 0) {
                        if (round < st->last_round) {
                                r = stage_fail(err, "matches: heats after the final (round %d)", round);
                                goto out;
                        }
                        h->finished = true;
                        h->final_match = (long) st->order[a];
                        goto out;
                }
                if (round == st->last_round) {
                        for (int i = 0; i < adv; i++)
                                if (in->entrants[next[i]].active)
                                        h->field[h->m++] = next[i];
                        goto field;
                }
                cur_m = adv;
                /* the next iteration reads next[0..cur_m) */
        }
field:
        for (int i = 0; i < h->m; i++)
                h->running[h->field[i]] = true;
        /* one entrant (or none) left: nothing to race for */
        if (h->m < 2)
                h->finished = true;
out:
        free(cur);
        free(next);
        free(mark);
        free(res);
        return r;
}

/* Placement per entrant: running 0; the final's table by its ranks; the
 * others behind everyone who got further (running, or eliminated in a
 * later round), sharing the place with those eliminated in the same round;
 * a lone survivor of a stage that ran out of entrants is 1st. */
static void stage_heats_places(const struct stage *st, const struct stage_heats *h, int *place) {
        const struct tour_stage_input *in = st->in;
        int n = st->n, nrun = 0, maxr = st->last_round + 1;
        int *cnt = calloc((size_t) maxr + 2, sizeof *cnt);

        for (int e = 0; e < n; e++)
                place[e] = 0;
        if (!cnt)
                return;
        for (int e = 0; e < n; e++) {
                if (h->running[e])
                        nrun++;
                else
                        cnt[h->reach[e]]++;
        }
        for (int e = 0; e < n; e++) {
                if (h->running[e]) {
                        place[e] = h->finished ? 1 : 0;
                        continue;
                }
                int better = nrun;
                for (int rr = h->reach[e] + 1; rr <= maxr; rr++)
                        better += cnt[rr];
                place[e] = better + 1;
        }
        if (h->final_match >= 0) {
                const struct tour_result *f = &in->matches[h->final_match].result;
                for (int s = 0; s < f->n; s++)
                        place[f->entrant[s]] = f->rank[s];
        }
        free(cnt);
}

/* ---- next ------------------------------------------------------------- */

void tour_stage_next_free(struct tour_stage_next *next) {
        if (!next)
                return;
        free(next->pairings);
        free(next->byes);
        free(next->walkovers);
        memset(next, 0, sizeof *next);
}

static int stage_active_count(const struct stage *st) {
        int c = 0;
        for (int e = 0; e < st->n; e++)
                c += st->in->entrants[e].active;
        return c;
}

/* The floats (swiss.h, enum tour_float; FIDE C.04.3 1.4) each entrant
 * received one and two rounds before `round`, into pe[].floated[]: in a
 * played duel between different scores (as they stood before that round)
 * the higher gets a downfloat and the lower an upfloat; a bye, and a win
 * by the opponent's forfeit (scoring more than the forfeiter without
 * playing), are downfloats. */
static int stage_floats(const struct stage *st, int round, struct tour_pair_entrant *pe) {
        const struct tour_stage_input *in = st->in;
        size_t n = (size_t) st->n;
        double *before = calloc(2 * n, sizeof *before); /* [slot * n + e]: points before round - 1 - slot */
        double pts[TOUR_MAX_SEATS];

        if (!before)
                return -ENOMEM;
        for (size_t i = 0; i < in->n_matches; i++) {
                const struct tour_stage_match *m = &in->matches[i];
                int q = stage_round_of(st, i);
                if (!m->done || q >= round - 1 || tour_points_award(&st->cfg->points, &m->result, pts, NULL) < 0)
                        continue;
                for (int s = 0; s < m->result.n; s++) {
                        before[m->result.entrant[s]] += pts[s];
                        if (q < round - 2)
                                before[n + (size_t) m->result.entrant[s]] += pts[s];
                }
        }
        for (size_t i = 0; i < in->n_byes; i++) {
                int q = in->byes[i].round;
                if (q < round - 1)
                        before[in->byes[i].entrant] += st->cfg->points.bye;
                if (q < round - 2)
                        before[n + (size_t) in->byes[i].entrant] += st->cfg->points.bye;
        }
        for (int slot = 0; slot < 2; slot++) {
                int q = round - 1 - slot;
                const double *b = before + (size_t) slot * n;
                for (size_t i = 0; q >= 1 && i < in->n_matches; i++) {
                        const struct tour_stage_match *m = &in->matches[i];
                        if (!m->done || m->result.n != 2 || stage_round_of(st, i) != q)
                                continue;
                        int a = m->result.entrant[0], c = m->result.entrant[1];
                        bool fa = m->result.forfeit[0], fc = m->result.forfeit[1];
                        if (fa || fc) {
                                if (fa != fc && tour_points_award(&st->cfg->points, &m->result, pts, NULL) == 2 &&
                                    pts[fa ? 1 : 0] > pts[fa ? 0 : 1])
                                        pe[fa ? c : a].floated[slot] = TOUR_FLOAT_DOWN;
                                continue;
                        }
                        if (b[a] != b[c]) {
                                int hi = b[a] > b[c] ? a : c, lo = hi == a ? c : a;
                                pe[hi].floated[slot] = TOUR_FLOAT_DOWN;
                                pe[lo].floated[slot] = TOUR_FLOAT_UP;
                        }
                }
                for (size_t i = 0; q >= 1 && i < in->n_byes; i++)
                        if (in->byes[i].round == q)
                                pe[in->byes[i].entrant].floated[slot] = TOUR_FLOAT_DOWN;
        }
        free(before);
        return 0;
}

/* The pairing snapshot (swiss.h) before round `round`: points from the
 * standings, ratings from the entrants, byes, the seat held in the
 * previous round, the floats of the last two rounds, meetings and seat
 * counts over every stored match. */
static int stage_snapshot(const struct stage *st, int round, struct tour_pair_input *pin,
                          struct tour_pair_entrant **ret_e, uint16_t **ret_meet, uint16_t **ret_seats,
                          struct tour_stage_error *err) {
        const struct tour_stage_input *in = st->in;
        size_t n = (size_t) st->n;
        struct tour_standings_row *rows = malloc(n * sizeof *rows);
        struct tour_pair_entrant *pe = calloc(n, sizeof *pe);
        uint16_t *meet = calloc(n * n, sizeof *meet), *seats = calloc(n * TOUR_MAX_SEATS, sizeof *seats);
        int r;

        *ret_e = pe;
        *ret_meet = meet;
        *ret_seats = seats;
        if (!rows || !pe || !meet || !seats) {
                free(rows);
                return -ENOMEM;
        }
        r = stage_raw_standings(st, rows, err);
        if (r < 0) {
                free(rows);
                return r;
        }
        for (size_t i = 0; i < n; i++) {
                pe[i].entrant = (int32_t) i;
                pe[i].rating = in->entrants[i].rating;
                pe[i].active = in->entrants[i].active;
        }
        for (size_t i = 0; i < n; i++)
                pe[rows[i].entrant].score = rows[i].points;
        free(rows);
        for (size_t i = 0; i < in->n_byes; i++)
                pe[in->byes[i].entrant].byes++;
        for (size_t i = 0; i < in->n_matches; i++) {
                const struct tour_stage_match *m = &in->matches[i];
                for (int s = 0; s < m->n; s++) {
                        size_t a = (size_t) m->entrant[s];
                        if (seats[a * TOUR_MAX_SEATS + s] < UINT16_MAX)
                                seats[a * TOUR_MAX_SEATS + s]++;
                        if (m->round == round - 1)
                                pe[a].last_seat = s + 1;
                        for (int t = 0; t < m->n; t++) {
                                size_t b = (size_t) m->entrant[t];
                                /* saturating: the matrix stays symmetric */
                                if (t != s && meet[a * n + b] < UINT16_MAX)
                                        meet[a * n + b]++;
                        }
                }
        }
        if (st->cfg->format == TOUR_FORMAT_SWISS && (r = stage_floats(st, round, pe)) < 0)
                return r;
        *pin = (struct tour_pair_input) { .n = st->n, .round = round, .seed = st->cfg->seed,
                                          .entrants = pe, .meetings = meet, .seats = seats };
        return 0;
}

static int stage_next_snapshot(const struct stage *st, struct tour_stage_next *ret, struct tour_pairing *tp,
                               struct tour_stage_error *err) {
        const struct tour_stage_config *cfg = st->cfg;
        struct tour_pair_entrant *pe = NULL;
        uint16_t *meet = NULL, *seats = NULL;
        struct tour_pair_input pin;
        int r, nb = 0, round = st->last_round + 1;

        r = stage_snapshot(st, round, &pin, &pe, &meet, &seats, err);
        if (r < 0)
                goto out;
        if (cfg->format == TOUR_FORMAT_SWISS) {
                struct tour_swiss_info info = { 0 };
                r = tour_swiss_pair(&pin, tp, ret->byes, &nb, &info);
                ret->repeats = info.rematches;
        } else {
                struct tour_pods_info info = { 0 };
                if (cfg->format == TOUR_FORMAT_POD_SWISS)
                        r = tour_pods_pair(&pin, cfg->table_size, cfg->pod_policy, tp, ret->byes, &nb, &info);
                else if (cfg->format == TOUR_FORMAT_LEAGUE)
                        r = tour_pods_league(&pin, cfg->table_size, cfg->pod_policy, tp, ret->byes, &nb, &info);
                else
                        r = tour_pods_race(&pin, cfg->table_size, tp, &info);
                ret->repeats = info.repeats;
                if (r == -ERANGE && err)
                        snprintf(err->text, sizeof err->text, "pod_policy: %d active entrants cannot be seated "
                                 "at tables of %d under this policy", stage_active_count(st), cfg->table_size);
        }
        if (r < 0)
                goto out;
        ret->n_byes = nb;
out:
        free(pe);
        free(meet);
        free(seats);
        return r;
}

/* Round robin and groups: the next stage round that has something to
 * play, with every match of a dropped entrant left out and its active
 * opponent given the bye instead.  A round can only come out empty in a
 * groups stage (every group still playing has nobody active left): it is
 * skipped, and stored rounds then have a gap, which the schedule check
 * allows.  *ret_round 0: nothing is left to play. */
static int stage_next_schedule(const struct stage *st, int total, struct tour_stage_next *ret,
                               struct tour_pairing *tp, int *ret_round) {
        const struct tour_stage_entrant *en = st->in->entrants;
        struct tour_bye *sb = malloc((size_t) st->n_groups * sizeof *sb);
        int nsb, k = 0;

        *ret_round = 0;
        if (!sb)
                return -ENOMEM;
        for (int round = st->last_round + 1; round <= total; round++) {
                int c = stage_schedule_round(st, round, tp, sb, &nsb);
                if (c < 0) {
                        free(sb);
                        return c;
                }
                ret->n_byes = 0;
                for (int i = 0; i < nsb; i++)
                        if (en[sb[i].entrant].active)
                                ret->byes[ret->n_byes++] = sb[i];
                k = 0;
                for (int t = 0; t < c; t++) {
                        bool a0 = en[tp[t].entrant[0]].active, a1 = en[tp[t].entrant[1]].active;
                        if (a0 && a1) {
                                tp[k++] = tp[t];
                                continue;
                        }
                        for (int s = 0; s < 2; s++)
                                if (en[tp[t].entrant[s]].active)
                                        ret->byes[ret->n_byes++] = (struct tour_bye) { round, tp[t].entrant[s] };
                }
                if (k > 0 || ret->n_byes > 0) {
                        *ret_round = round;
                        break;
                }
        }
        free(sb);
        return k;
}

static int stage_next_bracket(const struct stage *st, struct tour_stage_next *ret) {
        const struct tour_bracket *b = st->b;
        bool open = false;

        for (int id = 0; id < b->n_matches; id++) {
                const struct tour_bracket_state *s = &st->states[id];
                if (s->status == TOUR_MATCH_READY || s->status == TOUR_MATCH_WAITING)
                        open = true;
                if (st->walkover[id])
                        ret->walkovers[ret->n_walkovers++] = (struct tour_stage_walkover) {
                                .bracket_id = id, .winner = s->winner, .loser = s->loser };
                if (s->status != TOUR_MATCH_READY || st->stored[id] >= 0)
                        continue;
                struct tour_stage_pairing *p = &ret->pairings[ret->n_pairings++];
                p->bracket_id = id;
                p->pairing.round = st->depth[id];
                p->pairing.table = ret->n_pairings;
                p->pairing.n = 2;
                for (int k = 0; k < TOUR_MAX_SEATS; k++)
                        p->pairing.entrant[k] = k < 2 ? s->occupant[k] : TOUR_NONE;
        }
        ret->finished = !open;
        return ret->n_pairings;
}

int tour_stage_next(const struct tour_stage_input *in, struct tour_stage_next *ret,
                    struct tour_stage_error *ret_err) {
        struct stage st;
        struct tour_pairing *tp = NULL;
        struct stage_heats h = { 0 };
        int r, total, round = 0;
        size_t cap;

        if (ret)
                memset(ret, 0, sizeof *ret);
        r = stage_open(in, &st, ret_err);
        if (r < 0)
                goto out;
        if (!ret) {
                r = stage_fail(ret_err, "ret: missing");
                goto out;
        }
        cap = st.b ? (size_t) st.b->n_matches : (size_t) st.n + 1;
        ret->pairings = calloc(cap, sizeof *ret->pairings);
        ret->byes = calloc(cap, sizeof *ret->byes);
        ret->walkovers = calloc(cap, sizeof *ret->walkovers);
        tp = calloc(cap, sizeof *tp);
        if (!ret->pairings || !ret->byes || !ret->walkovers || !tp) {
                r = -ENOMEM;
                goto out;
        }
        if (st.b) {
                r = stage_next_bracket(&st, ret);
                goto out;
        }
        if (!st.all_done) {
                r = stage_fail(ret_err, "matches: round %d is still being played", st.last_round);
                r = -EBUSY;
                goto out;
        }
        total = tour_stage_rounds(st.cfg, st.n);
        if (total < 0) {
                r = total;
                goto out;
        }
        if (st.cfg->format == TOUR_FORMAT_HEATS) {
                r = stage_heats(&st, &h, ret_err);
                if (r < 0)
                        goto out;
                if (h.finished) {
                        ret->finished = true;
                        goto out;
                }
                r = tour_heats_round(st.last_round + 1, h.field, h.m, st.cfg->table_size, tp);
        } else if (st.last_round >= total || stage_active_count(&st) < 2) {
                ret->finished = true;
                r = 0;
                goto out;
        } else if (st.cfg->format == TOUR_FORMAT_ROUND_ROBIN || st.cfg->format == TOUR_FORMAT_GROUPS) {
                r = stage_next_schedule(&st, total, ret, tp, &round);
                if (r >= 0 && round == 0) {
                        ret->finished = true;
                        r = 0;
                        goto out;
                }
        } else
                r = stage_next_snapshot(&st, ret, tp, ret_err);
        if (r < 0)
                goto out;
        ret->round = st.cfg->format == TOUR_FORMAT_ROUND_ROBIN || st.cfg->format == TOUR_FORMAT_GROUPS
                             ? round : st.last_round + 1;
        for (int i = 0; i < r; i++) {
                ret->pairings[i].bracket_id = -1;
                ret->pairings[i].pairing = tp[i];
                ret->pairings[i].pairing.round = ret->round;
                ret->pairings[i].pairing.table = i + 1;
        }
        for (int i = 0; i < ret->n_byes; i++)
                ret->byes[i].round = ret->round;
        ret->n_pairings = r;
out:
        free(tp);
        stage_heats_free(&h);
        stage_close(&st);
        return r;
}

/* ---- standings, top ---------------------------------------------------- */

struct stage_sort {
        int     key;            /* placement, 0 (still in) first */
        int     pos;            /* position in the raw standings */
};

static int stage_cmp_sort(const void *x, const void *y) {
        const struct stage_sort *a = x, *b = y;
        if (a->key != b->key)
                return a->key < b->key ? -1 : 1;
        return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* A row's sort key across groups: the place (rank within the group, or
 * for an advance the place among the group's qualifiers), then points and
 * each tie-break turned so that smaller sorts first, then the entrant. */
struct stage_gkey {
        int     place;
        int32_t entrant;
        int     row;                    /* the row it was made from */
        double  v[1 + TOUR_STANDINGS_MAX_TIEBREAKS];
};

static void stage_gkey_make(const struct tour_stage_config *cfg, const struct tour_standings_row *row, int place,
                            int idx, struct stage_gkey *k) {
        memset(k, 0, sizeof *k);
        k->place = place;
        k->entrant = row->entrant;
        k->row = idx;
        k->v[0] = -row->points;
        for (int t = 0; t < cfg->n_tiebreaks; t++)
                k->v[1 + t] = tour_standings_tb_higher_is_better(cfg->tiebreaks[t]) == 1 ? -row->tb[t] : row->tb[t];
}

/* Everything but the entrant, values at standings.h's resolution: 0 means
 * the two rows share a rank. */
static int stage_gkey_cmp_values(const struct stage_gkey *a, const struct stage_gkey *b) {
        if (a->place != b->place)
                return a->place < b->place ? -1 : 1;
        for (size_t i = 0; i < sizeof a->v / sizeof a->v[0]; i++)
                if (fabs(a->v[i] - b->v[i]) > TOUR_STANDINGS_RESOLUTION)
                        return a->v[i] < b->v[i] ? -1 : 1;
        return 0;
}

static int stage_cmp_gkey(const void *x, const void *y) {
        const struct stage_gkey *a = x, *b = y;
        int c = stage_gkey_cmp_values(a, b);

        if (c)
                return c;
        return a->entrant < b->entrant ? -1 : a->entrant > b->entrant;
}

/* Groups: the standings of each group from its own results and byes only
 * (a group's matches never leave it: the schedule check saw to that), its
 * entrants renumbered 0..size-1 for standings.h, so that every tie-break
 * (direct encounter above all) is computed among group-mates; then every
 * row by stage_cmp_gkey with the rank within the group as the place.
 * Within one group that keeps the group's own order: rows sharing a group
 * rank are equal on points and every tie-break, and both orders fall back
 * to the entrant. */
static int stage_group_standings(const struct stage *st, struct tour_standings_row *rows, int *ret_place,
                                 struct tour_stage_error *err) {
        const struct tour_stage_input *in = st->in;
        int n = st->n, g = st->n_groups, kk = 0, r = 0;
        size_t nm = in->n_matches ? in->n_matches : 1, nb = in->n_byes ? in->n_byes : 1;
        int *local = malloc((size_t) n * sizeof *local);
        size_t *rs = calloc((size_t) g + 2, sizeof *rs), *bs = calloc((size_t) g + 2, sizeof *bs);
        struct tour_result *res = malloc(nm * sizeof *res);
        struct tour_bye *by = malloc(nb * sizeof *by);
        bool *dropped = malloc((size_t) n * sizeof *dropped);
        struct tour_standings_row *all = malloc((size_t) n * sizeof *all), *lrows = malloc((size_t) n * sizeof *lrows);
        struct stage_gkey *keys = malloc((size_t) n * sizeof *keys);
        struct tour_points_error pe = { { 0 } };

        if (!local || !rs || !bs || !res || !by || !dropped || !all || !lrows || !keys) {
                r = -ENOMEM;
                goto out;
        }
        for (int grp = 0; grp < g; grp++)
                for (int i = st->group_start[grp]; i < st->group_start[grp + 1]; i++) {
                        local[st->members[i]] = i - st->group_start[grp];
                        dropped[i] = !in->entrants[st->members[i]].active;
                }
        /* results and byes bucketed by group (a counting sort) */
        for (size_t i = 0; i < in->n_matches; i++)
                if (in->matches[i].done)
                        rs[st->group[in->matches[i].entrant[0]] + 2]++;
        for (size_t i = 0; i < in->n_byes; i++)
                bs[st->group[in->byes[i].entrant] + 2]++;
        for (int k = 2; k < g + 2; k++) {
                rs[k] += rs[k - 1];
                bs[k] += bs[k - 1];
        }
        for (size_t i = 0; i < in->n_matches; i++) {
                const struct tour_stage_match *m = &in->matches[i];
                if (!m->done)
                        continue;
                struct tour_result *x = &res[rs[st->group[m->entrant[0]] + 1]++];
                *x = m->result;
                for (int s = 0; s < x->n; s++)
                        x->entrant[s] = local[x->entrant[s]];
        }
        for (size_t i = 0; i < in->n_byes; i++) {
                const struct tour_bye *b = &in->byes[i];
                by[bs[st->group[b->entrant] + 1]++] = (struct tour_bye) { b->round, local[b->entrant] };
        }
        /* now group grp's are [rs[grp], rs[grp+1]) */
        for (int grp = 0; grp < g; grp++) {
                int a = st->group_start[grp];
                struct tour_standings_input si = {
                        .n = st->group_start[grp + 1] - a, .dropped = dropped + a,
                        .results = res + rs[grp], .n_results = rs[grp + 1] - rs[grp],
                        .byes = by + bs[grp], .n_byes = bs[grp + 1] - bs[grp], .points = &st->cfg->points,
                        .tiebreaks = st->cfg->tiebreaks, .n_tiebreaks = (size_t) st->cfg->n_tiebreaks,
                };
                r = tour_standings_compute(&si, lrows, &pe);
                if (r < 0) {
                        if (r == -EINVAL)
                                stage_fail(err, "standings: group %d: %s: %s", grp + 1, pe.field, pe.message);
                        goto out;
                }
                for (int i = 0; i < si.n; i++) {
                        all[kk] = lrows[i];
                        all[kk].entrant = st->members[a + lrows[i].entrant];
                        stage_gkey_make(st->cfg, &all[kk], lrows[i].rank, kk, &keys[kk]);
                        kk++;
                }
        }
        qsort(keys, (size_t) n, sizeof *keys, stage_cmp_gkey);
        for (int i = 0; i < n; i++) {
                rows[i] = all[keys[i].row];
                rows[i].rank = i > 0 && stage_gkey_cmp_values(&keys[i], &keys[i - 1]) == 0 ? rows[i - 1].rank : i + 1;
                if (ret_place)
                        ret_place[i] = keys[i].place;
        }
        r = n;
out:
        free(local);
        free(rs);
        free(bs);
        free(res);
        free(by);
        free(dropped);
        free(all);
        free(lrows);
        free(keys);
        return r;
}

static int stage_standings(const struct stage *st, struct tour_standings_row *rows, int *ret_place,
                           struct tour_stage_error *err) {
        int n = st->n, r;
        int *place = NULL;
        struct tour_standings_row *raw = NULL;
        struct stage_sort *ord = NULL;
        struct stage_heats h = { 0 };

        if (st->cfg->format == TOUR_FORMAT_GROUPS)
                return stage_group_standings(st, rows, ret_place, err);
        r = stage_raw_standings(st, rows, err);
        if (r < 0)
                return r;
        if (!st->b && st->cfg->format != TOUR_FORMAT_HEATS) {
                if (ret_place)
                        memset(ret_place, 0, (size_t) n * sizeof *ret_place);
                return n;
        }
        place = malloc((size_t) n * sizeof *place);
        raw = malloc((size_t) n * sizeof *raw);
        ord = malloc((size_t) n * sizeof *ord);
        if (!place || !raw || !ord) {
                r = -ENOMEM;
                goto out;
        }
        if (st->b)
                memcpy(place, st->place, (size_t) n * sizeof *place);
        else {
                r = stage_heats(st, &h, err);
                if (r < 0)
                        goto out;
                stage_heats_places(st, &h, place);
        }
        memcpy(raw, rows, (size_t) n * sizeof *raw);
        for (int i = 0; i < n; i++)
                ord[i] = (struct stage_sort) { place[raw[i].entrant], i };
        qsort(ord, (size_t) n, sizeof *ord, stage_cmp_sort);
        /* equal placement and equal raw rank = equal on points and every
         * tie-break: the same rank (competition ranking) */
        for (int i = 0; i < n; i++) {
                rows[i] = raw[ord[i].pos];
                if (i > 0 && ord[i].key == ord[i - 1].key && raw[ord[i].pos].rank == raw[ord[i - 1].pos].rank)
                        rows[i].rank = rows[i - 1].rank;
                else
                        rows[i].rank = i + 1;
                if (ret_place)
                        ret_place[i] = ord[i].key;
        }
        r = n;
out:
        free(place);
        free(raw);
        free(ord);
        stage_heats_free(&h);
        return r;
}

int tour_stage_standings(const struct tour_stage_input *in, struct tour_standings_row *ret_rows,
                         int *ret_place, struct tour_stage_error *ret_err) {
        struct stage st;
        int r = stage_open(in, &st, ret_err);

        if (r >= 0 && !ret_rows)
                r = stage_fail(ret_err, "ret_rows: missing");
        if (r >= 0)
                r = stage_standings(&st, ret_rows, ret_place, ret_err);
        stage_close(&st);
        return r;
}

/* The top `count` active entrants into ret, and the stage for the caller
 * (closed by the caller). */
static int stage_top(const struct tour_stage_input *in, int count, int32_t *ret, struct stage *st,
                     struct tour_stage_error *err) {
        struct tour_standings_row *rows;
        int r = stage_open(in, st, err), k = 0;

        if (r < 0)
                return r;
        if (!ret)
                return stage_fail(err, "ret_entrants: missing");
        if (count < 1 || count > st->n)
                return stage_fail(err, "count: must be 1 to %d", st->n);
        rows = malloc((size_t) st->n * sizeof *rows);
        if (!rows)
                return -ENOMEM;
        r = stage_standings(st, rows, NULL, err);
        for (int i = 0; r >= 0 && i < st->n && k < count; i++)
                if (in->entrants[rows[i].entrant].active)
                        ret[k++] = rows[i].entrant;
        free(rows);
        if (r < 0)
                return r;
        if (k < count) {
                stage_fail(err, "count: only %d entrants are active", k);
                return -ERANGE;
        }
        return count;
}

int tour_stage_top(const struct tour_stage_input *in, int count, int32_t *ret_entrants,
                   struct tour_stage_error *ret_err) {
        struct stage st;
        int r = stage_top(in, count, ret_entrants, &st, ret_err);

        stage_close(&st);
        return r;
}

int tour_stage_top_cut(const struct tour_stage_input *in, int count, int32_t *ret_entrants,
                       struct tour_stage_error *ret_err) {
        struct stage st;
        int32_t *local = NULL, *seeds = NULL;
        int *slot = NULL;
        uint8_t *met = NULL;
        int r;

        if (count < 2 || count > TOUR_GROUPS_MAX_SEEDED) {
                memset(&st, 0, sizeof st);
                r = stage_fail(ret_err, "count: a top cut takes 2 to %d", TOUR_GROUPS_MAX_SEEDED);
                goto out;
        }
        r = stage_top(in, count, ret_entrants, &st, ret_err);
        if (r < 0)
                goto out;
        /* The cut is renumbered 0..count-1 in standings order, so the
         * meetings matrix is count² rather than n². */
        local = malloc((size_t) count * sizeof *local);
        seeds = malloc((size_t) count * sizeof *seeds);
        slot = malloc((size_t) st.n * sizeof *slot);
        met = calloc((size_t) count * (size_t) count, 1);
        if (!local || !seeds || !slot || !met) {
                r = -ENOMEM;
                goto out;
        }
        for (int e = 0; e < st.n; e++)
                slot[e] = -1;
        for (int k = 0; k < count; k++) {
                local[k] = k;
                slot[ret_entrants[k]] = k;
        }
        for (size_t i = 0; i < in->n_matches; i++) {
                const struct tour_stage_match *m = &in->matches[i];
                for (int a = 0; a < m->n; a++)
                        for (int b = 0; b < m->n; b++)
                                if (a != b && slot[m->entrant[a]] >= 0 && slot[m->entrant[b]] >= 0)
                                        met[(size_t) slot[m->entrant[a]] * (size_t) count +
                                            (size_t) slot[m->entrant[b]]] = 1;
        }
        r = tour_groups_top_cut(count, local, count, met, seeds);
        if (r < 0)
                goto out;
        for (int k = 0; k < count; k++)
                seeds[k] = ret_entrants[seeds[k]];
        memcpy(ret_entrants, seeds, (size_t) count * sizeof *seeds);
out:
        free(local);
        free(seeds);
        free(slot);
        free(met);
        stage_close(&st);
        return r;
}

/* ---- dependents, bracket view ------------------------------------------ */

int tour_stage_dependents(const struct tour_stage_input *in, size_t match_index, bool pending,
                          size_t *ret, size_t cap, struct tour_stage_error *ret_err) {
        struct stage st;
        int *ids = NULL;
        size_t k = 0;
        int r = stage_open(in, &st, ret_err);

        if (r < 0)
                goto out;
        if (match_index >= in->n_matches) {
                r = stage_fail(ret_err, "match_index: %zu, there are %zu matches", match_index, in->n_matches);
                goto out;
        }
        if (!ret && cap > 0) {
                r = stage_fail(ret_err, "ret: missing");
                goto out;
        }
        if (st.b) {
                ids = malloc((size_t) st.b->n_matches * sizeof *ids);
                if (!ids) {
                        r = -ENOMEM;
                        goto out;
                }
                r = tour_bracket_dependents(st.b, st.outcome, in->matches[match_index].bracket_id, false, ids);
                if (r < 0)
                        goto out;
                for (int j = 0; j < r; j++) {
                        int s = st.stored[ids[j]];
                        if (s < 0 || in->matches[s].done == pending)
                                continue;
                        if (k == cap) {
                                stage_fail(ret_err, "cap: %zu is too small", cap);
                                r = -ERANGE;
                                goto out;
                        }
                        ret[k++] = (size_t) s;
                }
                /* ids come by graph id; callers want stored index order */
                qsort(ret, k, sizeof *ret, stage_cmp_size);
        } else if (tour_format_round_based(st.cfg->format)) {
                int r0 = in->matches[match_index].round;
                for (size_t i = 0; i < in->n_matches; i++) {
                        if (in->matches[i].round <= r0 || in->matches[i].done == pending)
                                continue;
                        if (k == cap) {
                                stage_fail(ret_err, "cap: %zu is too small", cap);
                                r = -ERANGE;
                                goto out;
                        }
                        ret[k++] = i;
                }
        }
        r = (int) k;
out:
        free(ids);
        stage_close(&st);
        return r;
}

void tour_stage_bracket_free(struct tour_stage_bracket_view *view) {
        if (!view)
                return;
        tour_bracket_free(view->bracket);
        free(view->states);
        free(view->stored);
        free(view->walkover);
        free(view->place);
        memset(view, 0, sizeof *view);
}

int tour_stage_bracket(const struct tour_stage_input *in, struct tour_stage_bracket_view *ret,
                       struct tour_stage_error *ret_err) {
        struct stage st;
        int r;

        if (ret)
                memset(ret, 0, sizeof *ret);
        r = stage_open(in, &st, ret_err);
        if (r >= 0 && !ret)
                r = stage_fail(ret_err, "ret: missing");
        if (r >= 0 && !st.b)
                r = stage_fail(ret_err, "format: %s has no bracket", tour_format_name(st.cfg->format));
        if (r < 0) {
                stage_close(&st);
                return r;
        }
        /* hand the settled arrays over instead of copying them */
        ret->bracket = st.b;
        ret->states = st.states;
        ret->stored = st.stored;
        ret->walkover = st.walkover;
        ret->place = st.place;
        st.b = NULL;
        st.states = NULL;
        st.stored = NULL;
        st.walkover = NULL;
        st.place = NULL;
        r = 0;
        for (int id = 0; id < ret->bracket->n_matches; id++)
                r += ret->states[id].status == TOUR_MATCH_READY;
        stage_close(&st);
        return r;
}

/* ---- groups: who is in which, who goes on ------------------------------- */

int tour_stage_group_of(const struct tour_stage_input *in, int32_t *ret_group) {
        int *group, g;

        if (!in || !ret_group || tour_stage_config_check(in->cfg, in->n_entrants, NULL) < 0 ||
            in->cfg->format != TOUR_FORMAT_GROUPS)
                return -EINVAL;
        group = malloc((size_t) in->n_entrants * sizeof *group);
        if (!group)
                return -ENOMEM;
        g = stage_split(in->cfg, in->n_entrants, group);
        for (int e = 0; g >= 0 && e < in->n_entrants; e++)
                ret_group[e] = group[e];
        free(group);
        return g;
}

/* The top q active of every group, each tagged with its place among its
 * group's qualifiers (tier), ordered by stage_cmp_gkey; into a bracket
 * then seeded by tour_groups_seed_bracket with the groups in the order of
 * their tier-0 qualifiers. */
static int stage_advance_groups(const struct tour_stage_input *in, int count, enum tour_format next_format,
                                int32_t *ret, struct tour_stage_error *err) {
        struct stage st;
        struct tour_standings_row *rows = NULL;
        struct stage_gkey *keys = NULL;
        int *taken = NULL, *gpos = NULL;
        int32_t *table = NULL;
        int r = stage_open(in, &st, err), g, q, k = 0;

        if (r < 0)
                goto out;
        g = st.n_groups;
        if (!ret) {
                r = stage_fail(err, "ret_entrants: missing");
                goto out;
        }
        if (count < 1 || count > st.n) {
                r = stage_fail(err, "count: must be 1 to %d", st.n);
                goto out;
        }
        if (count % g) {
                r = stage_fail(err, "count: %d is not a multiple of the %d groups (each group sends the same number "
                               "on)", count, g);
                goto out;
        }
        q = count / g;
        rows = malloc((size_t) st.n * sizeof *rows);
        keys = malloc((size_t) count * sizeof *keys);
        taken = calloc((size_t) g, sizeof *taken);
        gpos = malloc((size_t) g * sizeof *gpos);
        table = malloc((size_t) count * sizeof *table);
        if (!rows || !keys || !taken || !gpos || !table) {
                r = -ENOMEM;
                goto out;
        }
        r = stage_group_standings(&st, rows, NULL, err);
        if (r < 0)
                goto out;
        /* rows list each group in its own order (stage_group_standings) */
        for (int i = 0; i < st.n; i++) {
                int32_t e = rows[i].entrant;
                int grp = st.group[e];
                if (!in->entrants[e].active || taken[grp] == q)
                        continue;
                stage_gkey_make(st.cfg, &rows[i], taken[grp]++, i, &keys[k++]);
        }
        for (int grp = 0; grp < g; grp++)
                if (taken[grp] < q) {
                        stage_fail(err, "count: group %d has %d active entrants, %d should go on", grp + 1,
                                   taken[grp], q);
                        r = -ERANGE;
                        goto out;
                }
        qsort(keys, (size_t) count, sizeof *keys, stage_cmp_gkey);
        if (!tour_format_bracket(next_format)) {
                for (int i = 0; i < count; i++)
                        ret[i] = keys[i].entrant;
                r = count;
                goto out;
        }
        /* table[gi * q + t]: the t-th qualifier of the gi-th group, groups
         * ordered by their first qualifiers: the best group winner is seed 1 */
        k = 0;
        for (int i = 0; i < count; i++)
                if (keys[i].place == 0)
                        gpos[st.group[keys[i].entrant]] = k++;
        for (int i = 0; i < count; i++)
                table[gpos[st.group[keys[i].entrant]] * q + keys[i].place] = keys[i].entrant;
        r = tour_groups_seed_bracket(st.n, g, q, table, ret);
        if (r == -EINVAL)
                stage_fail(err, "count: %d groups of %d cannot seed a bracket", g, q);
        if (r >= 0)
                r = count;
out:
        free(rows);
        free(keys);
        free(taken);
        free(gpos);
        free(table);
        stage_close(&st);
        return r;
}

int tour_stage_advance(const struct tour_stage_input *in, int count, enum tour_format next_format,
                       int32_t *ret_entrants, struct tour_stage_error *ret_err) {
        int r;

        if (ret_err)
                ret_err->text[0] = '\0';
        if (!tour_format_name(next_format))
                return stage_fail(ret_err, "next_format: unknown (%d)", (int) next_format);
        if (in && in->cfg && in->cfg->format == TOUR_FORMAT_GROUPS)
                return stage_advance_groups(in, count, next_format, ret_entrants, ret_err);
        if (tour_format_bracket(next_format) && count >= 2 && count <= TOUR_GROUPS_MAX_SEEDED) {
                r = tour_stage_top_cut(in, count, ret_entrants, ret_err);
                return r < 0 ? r : count;
        }
        return tour_stage_top(in, count, ret_entrants, ret_err);
}
