/* bench_stamp — a helper of tests/bench/bench_e2e.sh, not a benchmark:
 * copies stdin to stdout line by line, each line prefixed with the
 * CLOCK_MONOTONIC time in microseconds at which it was read and a blank,
 * and flushes after every line.  The clock is the daemon's and padsim's
 * (docs/architecture.md, "Time and fairness"), so arrival stamps compare
 * with their times.
 *
 * Run without --stamp it prints what it is and exits 0, so that
 * tests/bench/run.sh, which runs every bench_* program, passes over it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int64_t mono_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int main(int argc, char **argv) {
        char line[65536];

        if (argc != 2 || strcmp(argv[1], "--stamp") != 0) {
                printf("bench_stamp: a helper of bench_e2e.sh (bench_stamp --stamp < lines)\n");
                return 0;
        }
        /* Whole lines as they come: unbuffered output, line-sized input. */
        setvbuf(stdout, NULL, _IOLBF, 0);
        while (fgets(line, sizeof line, stdin)) {
                int64_t t = mono_usec();
                size_t n = strlen(line);
                if (n && line[n - 1] == '\n')
                        line[--n] = '\0';
                printf("%lld %s\n", (long long) t, line);
        }
        return 0;
}
