/* tournament/round_robin.c — FIDE Berger tables.
 *
 * With N even Berger numbers (the last one the dummy when n is odd) and
 * Berger round r of a cycle (1..N-1), numbers 1..N-1 pair up by
 * i + j = r + 1 (mod N-1); the one number x with 2x = r + 1 (mod N-1) meets
 * N instead.  That reproduces the published tables exactly, including the
 * table order: table 1 is x against N (x white in odd rounds, N white in
 * even rounds), table t+1 is x+t against x-t (mod N-1, in 1..N-1).  Within
 * a pair of ordinary numbers the lower one is white when their sum is odd,
 * the higher one when it is even: the alternation that gives every player
 * colours as balanced as a round robin allows.  The FIDE tables of n = 6, 8
 * are reproduced verbatim in tests/unit/test_round_robin.c. */
#include <errno.h>
#include <string.h>

#include "tournament/round_robin.h"

int tour_round_robin_rounds(int n, int cycles) {
        if (n < 2 || n > TOUR_ROUND_ROBIN_MAX_ENTRANTS || cycles < 1 || cycles > TOUR_ROUND_ROBIN_MAX_CYCLES)
                return -EINVAL;
        return cycles * (n % 2 ? n : n - 1);
}

/* Wraps v into 1..m. */
static int rr_wrap(int v, int m) {
        v %= m;
        if (v <= 0)
                v += m;
        return v;
}

static void rr_emit(struct tour_pairing *p, int round, int table, int white, int black, bool swap) {
        memset(p, 0, sizeof *p);
        p->round = round;
        p->table = table;
        p->n = 2;
        p->entrant[0] = (swap ? black : white) - 1;
        p->entrant[1] = (swap ? white : black) - 1;
        for (int s = 2; s < TOUR_MAX_SEATS; s++)
                p->entrant[s] = TOUR_NONE;
}

int tour_round_robin_round(int n, int cycles, int round,
                           struct tour_pairing *ret_pairings, struct tour_bye *ret_bye) {
        int total = tour_round_robin_rounds(n, cycles), N, per, cycle, r, x, table = 0;
        bool swap;

        if (total < 0)
                return total;
        if (round < 1 || round > total || !ret_pairings)
                return -EINVAL;
        N = n + n % 2;
        per = N - 1;
        cycle = (round - 1) / per;
        r = (round - 1) % per + 1;
        /* FIDE C.05 Annex 1: in a double round robin the last two rounds of
         * the first cycle are swapped; the second cycle is played in the
         * table's own order with colours reversed. */
        if (cycles == 2 && cycle == 0 && per >= 2 && r >= per - 1)
                r = r == per ? per - 1 : per;
        swap = cycle % 2 == 1;
        if (ret_bye) {
                ret_bye->round = round;
                ret_bye->entrant = TOUR_NONE;
        }

        x = r % 2 ? (r + 1) / 2 : N / 2 + r / 2;
        if (N > n) {
                if (ret_bye)
                        ret_bye->entrant = x - 1;
        } else {
                rr_emit(&ret_pairings[0], round, 1, r % 2 ? x : N, r % 2 ? N : x, swap);
                table = 1;
        }
        for (int t = 1; t < N / 2; t++) {
                int a = rr_wrap(x + t, per), b = rr_wrap(x - t, per);
                int lo = a < b ? a : b, hi = a < b ? b : a;
                bool lo_white = (a + b) % 2 == 1;
                rr_emit(&ret_pairings[table], round, table + 1, lo_white ? lo : hi, lo_white ? hi : lo, swap);
                table++;
        }
        return table;
}

int tour_round_robin_schedule(int n, int cycles,
                              struct tour_pairing *ret_pairings, struct tour_bye *ret_byes) {
        int total = tour_round_robin_rounds(n, cycles), k = 0;

        if (total < 0)
                return total;
        if (!ret_pairings || (n % 2 && !ret_byes))
                return -EINVAL;
        for (int r = 1; r <= total; r++) {
                int c = tour_round_robin_round(n, cycles, r, ret_pairings + k, ret_byes ? &ret_byes[r - 1] : NULL);
                if (c < 0)
                        return c;
                k += c;
        }
        return k;
}
