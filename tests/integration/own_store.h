/* tests/integration/own_store.h — what a test that drives store/ or
 * organiser/ as plain C (no HTTP) stands on: a database of its own
 * (create_database(), with the migrations applied by the store), one loop
 * and one store on it, a way to run the loop until one callback has come,
 * and blocking SQL for setting a scene up and checking it.
 *
 * One per test program: the state is the module's (a test program is one
 * process, its tests run one after the other).  Every wait is bounded by
 * HARNESS_WAIT_MS, and a hang fails the test. */
#ifndef ARBITER_TESTS_OWN_STORE_H
#define ARBITER_TESTS_OWN_STORE_H

#include <stdbool.h>
#include <stdint.h>

struct loop;
struct store;

extern struct loop *own_loop;
extern struct store *own_store;
extern char *own_dsn;

/* Set by the callback a test waits for. */
struct own_wait {
        bool done, timed_out;
};

/* Creates the database (name: a prefix, made unique), the loop and the
 * store, and waits for the store to be READY.  Fails the test on error. */
void own_store_open(const char *name);
void own_store_close(void);

/* Runs the loop until w->done. */
void own_wait_for(struct own_wait *w, const char *what);

/* Blocking SQL on the database: a statement, the text of the one value a
 * query returns (malloc'd), or that value as a number.  Fail the test on
 * error. */
void own_sql(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *own_sql_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int64_t own_sql_int64(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
