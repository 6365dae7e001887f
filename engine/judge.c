/* engine/judge.c — the first-press judge; see judge.h and docs/judge.md.
 *
 * Invariants:
 *   - entries[0..n) are presses of the open window, in call order; n is 0
 *     whenever the window is not OPEN.
 *   - an entry's answer is HELD, FALSE_START, or COOLDOWN (kept only when
 *     cooldown_extends, because it moves the cooldown of later presses).
 *   - per seat, uncounted_max_us only grows; cooldown_end_us only grows.
 *   - everything the decision depends on is a function of the set of
 *     entries and their received_us: entries are only ever examined through
 *     orders that do not depend on call order (press order, received order).
 */
#include "engine/judge.h"

#include <errno.h>
#include <string.h>

/* "No such time" in per-seat memory: below every valid time. */
#define NO_TIME INT64_MIN

static int64_t max64(int64_t a, int64_t b) {
        return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b) {
        return a < b ? a : b;
}

static bool time_ok(int64_t t) {
        return t >= -JUDGE_TIME_LIMIT_US && t <= JUDGE_TIME_LIMIT_US;
}

static bool duration_ok(int64_t d) {
        return d >= 0 && d <= JUDGE_MAX_DURATION_US;
}

void judge_config_init(struct judge_config *ret) {
        *ret = (struct judge_config) {
                .settle_us = JUDGE_DEFAULT_SETTLE_US,
                .tie_window_us = JUDGE_DEFAULT_TIE_WINDOW_US,
                .lockout_us = JUDGE_DEFAULT_LOCKOUT_US,
                .cooldown_us = JUDGE_DEFAULT_COOLDOWN_US,
                .lockout_whole_window = false,
                .cooldown_extends = false,
                .accept_receive_time = true,
        };
}

/* A settle window shorter than the tie window would decide before a press
 * that ties the earliest could possibly have arrived. */
int judge_config_check(const struct judge_config *cfg) {
        if (!cfg)
                return -EINVAL;
        if (!duration_ok(cfg->settle_us) || !duration_ok(cfg->tie_window_us) ||
            !duration_ok(cfg->lockout_us) || !duration_ok(cfg->cooldown_us))
                return -EINVAL;
        if (cfg->settle_us < cfg->tie_window_us)
                return -EINVAL;
        return 0;
}

int judge_init(struct judge *j, const struct judge_config *cfg) {
        struct judge_config defaults;
        int r;

        if (!cfg) {
                judge_config_init(&defaults);
                cfg = &defaults;
        }
        r = judge_config_check(cfg);
        if (r < 0)
                return r;
        memset(j, 0, sizeof *j);
        j->cfg = *cfg;
        j->window = JUDGE_WINDOW_NONE;
        for (size_t s = 0; s < JUDGE_MAX_SEATS; s++)
                j->seats[s] = (struct judge_seat) {
                        .uncounted_max_us = NO_TIME,
                        .cooldown_end_us = NO_TIME,
                        .lock_end_us = NO_TIME,
                };
        return 0;
}

/* Every press that did not count is a possible false start for the next
 * window; only the latest one per seat can matter, because a lockout runs
 * from the press and the next window opens after all of them. */
static void remember_uncounted(struct judge *j, const struct judge_press *p) {
        struct judge_seat *s = &j->seats[p->seat];

        s->uncounted_max_us = max64(s->uncounted_max_us, p->time_us);
}

/* The lockout a seat carries into the window comes from its latest press
 * before open_us that did not count.  A remembered press at or after
 * open_us (a window opened with a time in the past) is not a false start. */
int judge_open(struct judge *j, int64_t open_us, uint32_t allowed_seats) {
        if (j->window == JUDGE_WINDOW_OPEN)
                return -EBUSY;
        if (!time_ok(open_us) || allowed_seats == 0 || (allowed_seats & ~JUDGE_ALL_SEATS))
                return -EINVAL;
        for (size_t i = 0; i < JUDGE_MAX_SEATS; i++) {
                struct judge_seat *s = &j->seats[i];

                s->lock_end_us = s->uncounted_max_us != NO_TIME && s->uncounted_max_us < open_us
                        ? s->uncounted_max_us + j->cfg.lockout_us : NO_TIME;
        }
        j->open_us = open_us;
        j->allowed_seats = allowed_seats;
        j->n = 0;
        j->window = JUDGE_WINDOW_OPEN;
        return 0;
}

int judge_close(struct judge *j) {
        if (j->window == JUDGE_WINDOW_OPEN)
                for (size_t i = 0; i < j->n; i++)
                        remember_uncounted(j, &j->entries[i].press);
        j->n = 0;
        j->window = JUDGE_WINDOW_NONE;
        return 0;
}

/* A seat whose lockout ends at lock_end_us: in whole-window mode a lockout
 * still running at the opening covers the whole window; otherwise it covers
 * presses before its end. */
static bool locked(const struct judge *j, int64_t lock_end_us, int64_t time_us) {
        if (lock_end_us == NO_TIME)
                return false;
        if (j->cfg.lockout_whole_window && lock_end_us > j->open_us)
                return true;
        return time_us < lock_end_us;
}

/* A press is locked out for good when the lockout covering it is carried
 * in from before the window or comes from a false start received no later
 * than the press: whenever the press is in time for the decision, so is
 * that false start.  A false start received later may still lock it out,
 * but only the replay can tell, so such a press is held. */
static bool locked_for_good(const struct judge *j, const struct judge_press *p) {
        int64_t end = j->seats[p->seat].lock_end_us;

        for (size_t i = 0; i < j->n; i++) {
                const struct judge_entry *e = &j->entries[i];

                if (e->answer == JUDGE_FALSE_START && e->press.seat == p->seat &&
                    e->press.received_us <= p->received_us)
                        end = max64(end, e->press.time_us + j->cfg.lockout_us);
        }
        return locked(j, end, p->time_us);
}

/* The answer judge_press() gives, and whether the press must be kept
 * because it can change the decision (a countable press, a false start) or
 * the cooldown of later presses. */
static enum judge_reason classify(const struct judge *j, const struct judge_press *p, bool *ret_keep) {
        *ret_keep = false;
        if (j->window == JUDGE_WINDOW_DECIDED)
                return JUDGE_TOO_LATE;
        if (j->window != JUDGE_WINDOW_OPEN)
                return JUDGE_NO_WINDOW;
        if (!(j->allowed_seats & (UINT32_C(1) << p->seat)))
                return JUDGE_NOT_ALLOWED;
        if (p->receive_time && !j->cfg.accept_receive_time)
                return JUDGE_NO_CLOCK;
        if (p->time_us < j->open_us) {
                *ret_keep = true;
                return JUDGE_FALSE_START;
        }
        if (locked_for_good(j, p))
                return JUDGE_LOCKED_OUT;
        if (p->time_us < j->seats[p->seat].cooldown_end_us) {
                *ret_keep = j->cfg.cooldown_extends;
                return JUDGE_COOLDOWN;
        }
        *ret_keep = true;
        return JUDGE_HELD;
}

int judge_press(struct judge *j, const struct judge_press *p, enum judge_reason *ret_reason) {
        enum judge_reason reason;
        bool keep;

        if (p->seat >= JUDGE_MAX_SEATS || p->uncertainty_us < 0 ||
            p->uncertainty_us > JUDGE_MAX_UNCERTAINTY_US ||
            !time_ok(p->time_us) || !time_ok(p->received_us))
                return -EINVAL;
        reason = classify(j, p, &keep);
        if (keep && j->n == JUDGE_MAX_PRESSES) {
                keep = false;
                reason = JUDGE_FULL;
        }
        if (keep)
                j->entries[j->n++] = (struct judge_entry) { .press = *p, .answer = reason };
        else
                remember_uncounted(j, p);
        *ret_reason = reason;
        return 0;
}

/* A strict total order on presses: by time, then by everything else, so
 * that sorting never depends on call order.  Only the first key matters
 * for who was first; button decides between two presses of one seat in the
 * same microsecond; the rest only makes identical-looking presses sort the
 * same way every time. */
static bool press_precedes(const struct judge_press *a, const struct judge_press *b) {
        if (a->time_us != b->time_us)
                return a->time_us < b->time_us;
        if (a->button != b->button)
                return a->button < b->button;
        if (a->received_us != b->received_us)
                return a->received_us < b->received_us;
        if (a->uncertainty_us != b->uncertainty_us)
                return a->uncertainty_us < b->uncertainty_us;
        if (a->receive_time != b->receive_time)
                return !a->receive_time;
        return a->id < b->id;
}

static bool received_precedes(const struct judge_press *a, const struct judge_press *b) {
        return a->received_us < b->received_us;
}

static void sort_entries(const struct judge *j, uint8_t *idx,
                         bool (*precedes)(const struct judge_press *, const struct judge_press *)) {
        for (size_t i = 0; i < j->n; i++)
                idx[i] = (uint8_t) i;
        for (size_t i = 1; i < j->n; i++) {
                uint8_t x = idx[i];
                size_t k = i;

                while (k > 0 && precedes(&j->entries[x].press, &j->entries[idx[k - 1]].press)) {
                        idx[k] = idx[k - 1];
                        k--;
                }
                idx[k] = x;
        }
}

/* The window as it stood when everything received up to a horizon had
 * arrived. */
struct eval {
        int counted[JUDGE_MAX_SEATS];                   /* entry index, or -1 */
        enum judge_reason label[JUDGE_MAX_PRESSES];     /* per entry */
        int64_t cooldown_end_us[JUDGE_MAX_SEATS];
};

/* Applies the per-seat rules to the presses received by horizon_us.  False
 * starts are gathered first because a lockout runs from the false start and
 * covers every later press; then each seat's presses are walked in press
 * order, so the first press that is neither locked out nor cooling down
 * counts and the later ones are refused. */
static void evaluate(const struct judge *j, const uint8_t *by_press, int64_t horizon_us, struct eval *ret) {
        int64_t lock_end[JUDGE_MAX_SEATS];

        for (size_t s = 0; s < JUDGE_MAX_SEATS; s++) {
                lock_end[s] = j->seats[s].lock_end_us;
                ret->cooldown_end_us[s] = j->seats[s].cooldown_end_us;
                ret->counted[s] = -1;
        }
        for (size_t i = 0; i < j->n; i++) {
                const struct judge_press *p = &j->entries[i].press;

                ret->label[i] = JUDGE_TOO_LATE;
                if (p->received_us <= horizon_us && p->time_us < j->open_us)
                        lock_end[p->seat] = max64(lock_end[p->seat], p->time_us + j->cfg.lockout_us);
        }
        for (size_t k = 0; k < j->n; k++) {
                size_t i = by_press[k];
                const struct judge_press *p = &j->entries[i].press;
                int64_t *cooldown_end = &ret->cooldown_end_us[p->seat];

                if (p->received_us > horizon_us)
                        continue;
                if (p->time_us < j->open_us) {
                        ret->label[i] = JUDGE_FALSE_START;
                } else if (locked(j, lock_end[p->seat], p->time_us)) {
                        ret->label[i] = JUDGE_LOCKED_OUT;
                } else if (p->time_us < *cooldown_end) {
                        ret->label[i] = JUDGE_COOLDOWN;
                        if (j->cfg.cooldown_extends)
                                *cooldown_end = max64(*cooldown_end, p->time_us + j->cfg.cooldown_us);
                } else if (ret->counted[p->seat] < 0) {
                        ret->label[i] = JUDGE_COUNTED;
                        ret->counted[p->seat] = (int) i;
                        *cooldown_end = max64(*cooldown_end, p->time_us + j->cfg.cooldown_us);
                } else {
                        ret->label[i] = JUDGE_ALREADY_PRESSED;
                }
        }
}

/* The settle window runs from the earliest moment at which a press is
 * certain to have happened, min(time + uncertainty) over the counted
 * presses: with a perfect clock that is the earliest press time, and a
 * press with a wide error bound (a pad without a clock) gets its bound
 * added, so that a press that could tie with it still has the full settle
 * window to arrive.  A decision is never earlier than the arrival that
 * made it possible. */
static int64_t decision_time(const struct judge *j, const struct eval *e, int64_t horizon_us) {
        int64_t sure = JUDGE_NEVER;

        for (size_t s = 0; s < JUDGE_MAX_SEATS; s++)
                if (e->counted[s] >= 0) {
                        const struct judge_press *p = &j->entries[e->counted[s]].press;

                        sure = min64(sure, p->time_us + p->uncertainty_us);
                }
        if (sure == JUDGE_NEVER)
                return JUDGE_NEVER;
        return max64(horizon_us, sure + j->cfg.settle_us);
}

/* Replays the kept presses in received order, one group of equal
 * received_us at a time, and stops at the first decision time that the
 * next arrival comes after.  The result is the state at the decision time
 * (or after everything, if there is none yet) whatever order the presses
 * were handed over in and however late the poll is. */
static int64_t replay(const struct judge *j, uint8_t *by_press, struct eval *ret) {
        uint8_t by_received[JUDGE_MAX_PRESSES];
        int64_t d = JUDGE_NEVER;
        size_t k = 0;

        sort_entries(j, by_press, press_precedes);
        sort_entries(j, by_received, received_precedes);
        evaluate(j, by_press, NO_TIME, ret);
        while (k < j->n) {
                int64_t r = j->entries[by_received[k]].press.received_us;

                if (r > d)
                        break;
                while (k < j->n && j->entries[by_received[k]].press.received_us == r)
                        k++;
                evaluate(j, by_press, r, ret);
                d = decision_time(j, ret, r);
        }
        return d;
}

/* q definitely pressed before p when p came later by more than the tie
 * threshold of the pair: max(tie window, u_q + u_p).  The two error
 * intervals [t - u, t + u] are then apart by more than the tie window, so
 * no clock error within the bounds could reverse the order. */
static bool definitely_before(int64_t tie_window_us, const struct judge_press *q, const struct judge_press *p,
                              int64_t *ret_gap_us, int64_t *ret_threshold_us) {
        int64_t gap = p->time_us - q->time_us;
        int64_t threshold = max64(tie_window_us, q->uncertainty_us + p->uncertainty_us);

        if (ret_gap_us)
                *ret_gap_us = gap;
        if (ret_threshold_us)
                *ret_threshold_us = threshold;
        return gap > threshold;
}

/* A counted press is first when no other counted press definitely came
 * before it.  This compares each press with every other, not only with the
 * earliest and not through chains: see docs/judge.md, "The tie set". */
static bool is_first(int64_t tie_window_us, const struct judge_press *counted, size_t n, size_t i) {
        for (size_t k = 0; k < n; k++)
                if (k != i && definitely_before(tie_window_us, &counted[k], &counted[i], NULL, NULL))
                        return false;
        return true;
}

static void decide(struct judge *j, const uint8_t *by_press, const struct eval *e, int64_t d,
                   struct judge_result *ret) {
        memset(ret, 0, sizeof *ret);
        ret->open_us = j->open_us;
        ret->allowed_seats = j->allowed_seats;
        ret->decided_us = d;
        ret->settle_us = j->cfg.settle_us;
        ret->tie_window_us = j->cfg.tie_window_us;
        ret->earliest_us = JUDGE_NEVER;
        for (size_t s = 0; s < JUDGE_MAX_SEATS; s++)
                if (e->counted[s] >= 0) {
                        const struct judge_press *p = &j->entries[e->counted[s]].press;

                        ret->counted[ret->n_counted++] = *p;
                        ret->earliest_us = min64(ret->earliest_us, p->time_us);
                        ret->receive_time_fallback |= p->receive_time;
                }
        for (size_t i = 0; i < ret->n_counted; i++)
                if (is_first(j->cfg.tie_window_us, ret->counted, ret->n_counted, i))
                        ret->first[ret->n_first++] = ret->counted[i];
        ret->outcome = ret->n_first == 1 ? JUDGE_WINNER : JUDGE_TIE;
        for (size_t k = 0; k < j->n; k++) {
                size_t i = by_press[k];

                if (j->entries[i].answer == JUDGE_HELD && e->label[i] != JUDGE_COUNTED)
                        ret->refused[ret->n_refused++] = (struct judge_verdict) {
                                .press = j->entries[i].press,
                                .reason = e->label[i],
                        };
        }

        for (size_t i = 0; i < j->n; i++)
                if (e->counted[j->entries[i].press.seat] != (int) i)
                        remember_uncounted(j, &j->entries[i].press);
        for (size_t s = 0; s < JUDGE_MAX_SEATS; s++)
                j->seats[s].cooldown_end_us = e->cooldown_end_us[s];
        j->n = 0;
        j->window = JUDGE_WINDOW_DECIDED;
}

int judge_poll(struct judge *j, int64_t now_us, int64_t *ret_wake_us, struct judge_result *ret_result) {
        uint8_t by_press[JUDGE_MAX_PRESSES] = { 0 };
        struct eval e;
        int64_t d;

        if (j->window != JUDGE_WINDOW_OPEN)
                return -ENOENT;
        d = replay(j, by_press, &e);
        if (d == JUDGE_NEVER || now_us < d) {
                if (ret_wake_us)
                        *ret_wake_us = d;
                return JUDGE_PENDING;
        }
        decide(j, by_press, &e, d, ret_result);
        return JUDGE_DECIDED;
}

/* The margins are measured from the earliest counted press; when several
 * share that time, the one with the smallest error bound is the reference,
 * because it is the one the others are hardest to tie with.  The witness
 * for a press that was not first is the press that beat it by the widest
 * margin beyond the threshold; it names a reason, it decides nothing. */
int judge_explain(const struct judge_result *r, struct judge_explanation *ret) {
        int64_t u_earliest = JUDGE_NEVER;

        if (r->n_counted == 0 || r->n_counted > JUDGE_MAX_SEATS)
                return -EINVAL;
        memset(ret, 0, sizeof *ret);
        ret->earliest_us = JUDGE_NEVER;
        for (size_t i = 0; i < r->n_counted; i++)
                ret->earliest_us = min64(ret->earliest_us, r->counted[i].time_us);
        for (size_t i = 0; i < r->n_counted; i++)
                if (r->counted[i].time_us == ret->earliest_us)
                        u_earliest = min64(u_earliest, r->counted[i].uncertainty_us);
        ret->earliest_uncertainty_us = u_earliest;
        ret->tie_window_us = r->tie_window_us;
        ret->settle_us = r->settle_us;
        ret->decided_us = r->decided_us;
        ret->receive_time_fallback = r->receive_time_fallback;
        ret->n = r->n_counted;
        for (size_t i = 0; i < r->n_counted; i++) {
                const struct judge_press *p = &r->counted[i];
                struct judge_margin *m = &ret->margins[i];
                int64_t best_excess = INT64_MIN;

                *m = (struct judge_margin) {
                        .press = *p,
                        .margin_us = p->time_us - ret->earliest_us,
                        .threshold_us = max64(r->tie_window_us, u_earliest + p->uncertainty_us),
                        .first = is_first(r->tie_window_us, r->counted, r->n_counted, i),
                        .beaten_by = -1,
                };
                for (size_t k = 0; k < r->n_counted && !m->first; k++) {
                        int64_t gap, threshold;

                        if (k != i && definitely_before(r->tie_window_us, &r->counted[k], p, &gap, &threshold) &&
                            gap - threshold > best_excess) {
                                best_excess = gap - threshold;
                                m->beaten_by = (int) k;
                                m->beaten_gap_us = gap;
                                m->beaten_threshold_us = threshold;
                        }
                }
        }
        return 0;
}

const char *judge_reason_name(enum judge_reason reason) {
        switch (reason) {
        case JUDGE_HELD:                return "held";
        case JUDGE_COUNTED:             return "counted";
        case JUDGE_NO_WINDOW:           return "no window";
        case JUDGE_TOO_LATE:            return "too late";
        case JUDGE_NOT_ALLOWED:         return "not allowed";
        case JUDGE_NO_CLOCK:            return "no clock";
        case JUDGE_FALSE_START:         return "false start";
        case JUDGE_LOCKED_OUT:          return "locked out";
        case JUDGE_COOLDOWN:            return "cooldown";
        case JUDGE_ALREADY_PRESSED:     return "already pressed";
        case JUDGE_FULL:                return "full";
        }
        return "unknown";
}
