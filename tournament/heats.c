/* tournament/heats.c — free-for-all heats with the top q advancing. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tournament/heats.h"

static bool heats_args_ok(int n, int k, int q) {
        return n >= 1 && n <= TOUR_HEATS_MAX_N && k >= 2 && k <= TOUR_MAX_SEATS && q >= 1 && q < k;
}

int tour_heats_plan(int n, int k, int q, struct tour_heats_stage *ret_stages, int cap) {
        int rounds = 0;

        if (!heats_args_ok(n, k, q) || (ret_stages && cap < 0))
                return -EINVAL;
        for (int m = n;;) {
                struct tour_heats_stage st = { .entrants = m };
                st.heats = m <= k ? 1 : (m + k - 1) / k;
                st.min_size = m / st.heats;
                st.max_size = (m + st.heats - 1) / st.heats;
                if (st.heats > 1) {
                        int big = m % st.heats;
                        int adv_big = q < st.max_size - 1 ? q : st.max_size - 1;
                        int adv_small = q < st.min_size - 1 ? q : st.min_size - 1;
                        st.advance = big * adv_big + (st.heats - big) * adv_small;
                }
                if (ret_stages) {
                        if (rounds >= cap)
                                return -ERANGE;
                        ret_stages[rounds] = st;
                }
                rounds++;
                if (st.heats == 1)
                        return rounds;
                m = st.advance;
        }
}

static int heats_cmp_i32(const void *x, const void *y) {
        int32_t a = *(const int32_t *) x, b = *(const int32_t *) y;
        return a < b ? -1 : a > b;
}

/* Sorted copy of the field for membership tests; -EINVAL on a negative or
 * repeated entrant. */
static int heats_sorted(const int32_t *field, int m, int32_t **ret) {
        int32_t *s = malloc((size_t) m * sizeof *s);

        if (!s)
                return -ENOMEM;
        memcpy(s, field, (size_t) m * sizeof *s);
        qsort(s, (size_t) m, sizeof *s, heats_cmp_i32);
        for (int i = 0; i < m; i++)
                if (s[i] < 0 || (i > 0 && s[i] == s[i - 1])) {
                        free(s);
                        return -EINVAL;
                }
        *ret = s;
        return 0;
}

static int heats_find(const int32_t *sorted, int m, int32_t e) {
        const int32_t *hit = bsearch(&e, sorted, (size_t) m, sizeof e, heats_cmp_i32);
        return hit ? (int) (hit - sorted) : -1;
}

int tour_heats_round(int round, const int32_t *field, int m, int k, struct tour_pairing *ret_pairings) {
        int32_t *sorted = NULL;
        int h, r;

        if (round < 1 || !field || !ret_pairings || !heats_args_ok(m, k, 1))
                return -EINVAL;
        r = heats_sorted(field, m, &sorted);
        if (r < 0)
                return r;
        free(sorted);
        h = m <= k ? 1 : (m + k - 1) / k;
        for (int i = 0; i < h; i++) {
                struct tour_pairing *t = &ret_pairings[i];
                memset(t, 0, sizeof *t);
                t->round = round;
                t->table = i + 1;
                for (int s = 0; s < TOUR_MAX_SEATS; s++)
                        t->entrant[s] = TOUR_NONE;
        }
        for (int i = 0; i < m; i++) {
                int pass = i / h, j = i % h;
                struct tour_pairing *t = &ret_pairings[pass % 2 == 0 ? j : h - 1 - j];
                t->entrant[t->n++] = field[i];
        }
        return h;
}

struct heats_place {
        int32_t e;
        int     seed;           /* index in field */
        int     rank;
        double  score;
        bool    forfeit;
        int     place;          /* 1-based place within the heat after the order below */
};

static int heats_cmp_place(const void *x, const void *y) {
        const struct heats_place *a = x, *b = y;

        if (a->forfeit != b->forfeit)
                return a->forfeit ? 1 : -1;
        if (a->rank != b->rank)
                return a->rank < b->rank ? -1 : 1;
        if (a->score != b->score)
                return a->score > b->score ? -1 : 1;
        return a->seed < b->seed ? -1 : a->seed > b->seed;
}

static int heats_cmp_next(const void *x, const void *y) {
        const struct heats_place *a = x, *b = y;

        if (a->place != b->place)
                return a->place < b->place ? -1 : 1;
        return a->seed < b->seed ? -1 : a->seed > b->seed;
}

int tour_heats_advance(const int32_t *field, int m, int q, const struct tour_result *results,
                       int nresults, int32_t *ret_next) {
        struct heats_place *all = NULL, *adv = NULL;
        int32_t *sorted = NULL;
        int *seed_of = NULL, total = 0, nadv = 0, r;

        if (!field || !results || !ret_next || m < 1 || m > TOUR_HEATS_MAX_N || q < 1 || nresults < 1)
                return -EINVAL;
        r = heats_sorted(field, m, &sorted);
        if (r < 0)
                return r;
        r = -ENOMEM;
        seed_of = malloc((size_t) m * sizeof *seed_of);
        all = calloc((size_t) m, sizeof *all);
        adv = calloc((size_t) m, sizeof *adv);
        bool *seen = calloc((size_t) m, sizeof *seen);
        if (!seed_of || !all || !adv || !seen)
                goto out;
        for (int i = 0; i < m; i++)
                seed_of[heats_find(sorted, m, field[i])] = i;
        r = -EINVAL;
        for (int h = 0; h < nresults; h++) {
                const struct tour_result *res = &results[h];
                if (res->n < 1 || res->n > TOUR_MAX_SEATS)
                        goto out;
                struct heats_place *heat = &all[total];
                for (int i = 0; i < res->n; i++) {
                        int at = heats_find(sorted, m, res->entrant[i]);
                        if (at < 0 || seen[at] || res->rank[i] < 1)
                                goto out;
                        seen[at] = true;
                        heat[i] = (struct heats_place) { .e = res->entrant[i], .seed = seed_of[at],
                                                         .rank = res->rank[i], .score = res->score[i],
                                                         .forfeit = res->forfeit[i] };
                }
                total += res->n;
                qsort(heat, (size_t) res->n, sizeof *heat, heats_cmp_place);
                int cut = q < res->n - 1 ? q : res->n - 1;
                for (int i = 0; i < cut && nresults > 1; i++)
                        if (!heat[i].forfeit) {
                                adv[nadv] = heat[i];
                                adv[nadv++].place = i + 1;
                        }
        }
        if (total != m)
                goto out;
        qsort(adv, (size_t) nadv, sizeof *adv, heats_cmp_next);
        for (int i = 0; i < nadv; i++)
                ret_next[i] = adv[i].e;
        r = nadv;
out:
        free(sorted);
        free(seed_of);
        free(all);
        free(adv);
        free(seen);
        return r;
}
