/* tests/bench/report.h — one row of `make bench`'s report, from a C benchmark
 * (docs/performance.md, "The report").
 *
 * Every figure a benchmark reports is a row: what was measured for arbiter,
 * the same thing measured in the same run for a reference (nginx, nchan,
 * psql, memcpy, a naive algorithm) and the goal, which is relative to the
 * reference, never an absolute time:
 *
 *   BENCH_GOAL_RATIO_MAX  arbiter / reference <= value   (lower is better: times, memory)
 *   BENCH_GOAL_RATIO_MIN  arbiter / reference >= value   (higher is better: rates)
 *   BENCH_GOAL_DIFF_MAX   arbiter - reference <= value   (in the figure's unit: a share on top of a floor)
 *   BENCH_GOAL_NONE       reported for information, no goal
 *
 * bench_report() appends the row as one JSON line to the file named by the
 * environment variable BENCH_ROWS (tests/bench/run.sh sets it; unset, it
 * does nothing), which tests/bench/report.sh turns into the table and
 * build/bench/report.json.  The shell benchmarks write the same rows with
 * report_row (tests/bench/lib.sh).
 *
 * id is stable across runs (lowercase, dots: "engine.crash_pilot.matches_per_s")
 * so that reports can be compared over time; figure is the line a person
 * reads; reference_name says what the reference is.  A figure that could not
 * be measured is NAN and printed as "-" (its goal then not met).
 */
#ifndef ARBITER_TESTS_BENCH_REPORT_H
#define ARBITER_TESTS_BENCH_REPORT_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum bench_goal {
        BENCH_GOAL_NONE,
        BENCH_GOAL_RATIO_MAX,
        BENCH_GOAL_RATIO_MIN,
        BENCH_GOAL_DIFF_MAX,
};

static inline void bench_report_str(FILE *f, const char *s) {
        fputc('"', f);
        for (; *s; s++) {
                if (*s == '"' || *s == '\\')
                        fprintf(f, "\\%c", *s);
                else if ((unsigned char) *s < 0x20)
                        fprintf(f, "\\u%04x", (unsigned char) *s);
                else
                        fputc(*s, f);
        }
        fputc('"', f);
}

static inline void bench_report_num(FILE *f, double v) {
        if (isfinite(v))
                fprintf(f, "%.6g", v);
        else
                fputs("null", f);
}

static inline void bench_report(const char *id, const char *figure, const char *unit, double arbiter,
                                double reference, const char *reference_name, enum bench_goal goal,
                                double goal_value) {
        static const char *const kinds[] = { "none", "ratio_max", "ratio_min", "diff_max" };
        const char *path = getenv("BENCH_ROWS");
        FILE *f;

        if (!path || !*path)
                return;
        f = fopen(path, "a");
        if (!f) {
                perror(path);
                return;
        }
        fputs("{\"id\":", f);
        bench_report_str(f, id);
        fputs(",\"figure\":", f);
        bench_report_str(f, figure);
        fputs(",\"unit\":", f);
        bench_report_str(f, unit);
        fputs(",\"arbiter\":", f);
        bench_report_num(f, arbiter);
        fputs(",\"reference\":", f);
        bench_report_num(f, reference);
        fputs(",\"reference_name\":", f);
        bench_report_str(f, reference_name);
        fprintf(f, ",\"goal\":{\"kind\":\"%s\",\"value\":", kinds[goal]);
        bench_report_num(f, goal == BENCH_GOAL_NONE ? NAN : goal_value);
        fputs("}}\n", f);
        fclose(f);
}

#endif
