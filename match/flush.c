/* match/flush.c — writing the spool to the database when it returns, and
 * what follows it (match.h, "The spool"). */
#include "match/runtime.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "store/spool.h"
#include "store/spool_writer.h"
#include "store/store.h"

void matches_store_ready(struct matches *reg) {
        struct match *m, *next;

        for (m = reg->list; m; m = next) {
                next = m->next;
                if (m->stale)
                        match_release(m);
        }
        if (reg->spool && !spool_empty(reg->spool)) {
                reg->load_after_flush = true;
                reg->loading = true;
                matches_flush_next(reg);
                return;
        }
        matches_load_unfinished(reg);
}

/* ---- flushing the spool ------------------------------------------------- */

struct spool_record {
        char *data;
        size_t len;
};

/* spool_foreach callback: copies the first record and stops. */
static int take_first(void *userdata, const void *data, size_t len) {
        struct spool_record *rec = userdata;

        rec->data = malloc(len);
        if (!rec->data)
                return -ENOMEM;
        memcpy(rec->data, data, len);
        rec->len = len;
        return 1;
}

static void on_cut(void *userdata, int r) {
        struct matches *reg = userdata;

        if (r < 0) {
                matches_spool_failed(reg, "to cut the flushed spool", r);
                return;
        }
        matches_flush_next(reg);
}

static void on_flushed(void *userdata, const PGresult *res, const char *error) {
        struct matches *reg = userdata;
        int r;

        reg->flushing = false;
        if (!res) {
                log_warning("a spooled input could not be written to the database yet (%s); %zu wait in the "
                            "spool", error, spool_pending(reg->spool));
                matches_flush_retry(reg);
                return;
        }
        r = spool_consume(reg->spool, 1);
        if (r < 0) {
                matches_spool_failed(reg, "to mark a record written", r);
                return;
        }
        reg->flushed++;
        matches_flush_next(reg);
}

/* Writes the spool's first record with the same idempotent INSERT an
 * input takes, one at a time and in order; consumed once the INSERT
 * completes (a crash in between writes it again, harmlessly).  When the
 * spool is empty, the rebuild that waited for it runs.  Stops when the
 * database goes away; matches_store_ready() resumes it. */
void matches_flush_next(struct matches *reg) {
        struct spool_record rec = { 0 };
        struct match_store_input row;
        json_t *root;
        int r;

        if (!reg->spool || reg->flushing || reg->broken)
                return;
        if (spool_pending(reg->spool) == 0) {
                /* Every record is in the database: the file is cut (and
                 * fsync'd) before any input goes there directly. */
                if (spool_may_truncate(reg->spool)) {
                        r = spool_writer_truncate(reg->writer, on_cut, reg);
                        if (r < 0)
                                matches_spool_failed(reg, "to cut the flushed spool", r);
                        return;
                }
                /* A record or the cut still on its way to the disk: its
                 * completion comes back here. */
                if (!spool_empty(reg->spool))
                        return;
                if (reg->flushed > 0)
                        log_notice("spool flushed: %" PRIu64 " input%s written to the database", reg->flushed,
                                   reg->flushed == 1 ? "" : "s");
                reg->flushed = 0;
                reg->spooled_after_failure = 0;
                if (reg->load_after_flush && store_get_state(reg->store) == STORE_READY) {
                        reg->load_after_flush = false;
                        reg->loading = false;
                        matches_load_unfinished(reg);
                }
                return;
        }
        if (store_get_state(reg->store) != STORE_READY)
                return;
        r = spool_foreach(reg->spool, take_first, &rec);
        if (r < 0) {
                matches_spool_failed(reg, "to read a record back", r);
                return;
        }
        if (match_store_input_from_record(rec.data, rec.len, &row, &root) < 0) {
                /* Whole and CRC-checked, yet not an input record: no build
                 * writes such a thing, and it must not block the rest. */
                log_error("the spool holds a record that is not a match input; dropped: %.*s", (int) rec.len,
                          rec.data);
                free(rec.data);
                r = spool_consume(reg->spool, 1);
                if (r < 0)
                        matches_spool_failed(reg, "to drop a record", r);
                else
                        matches_flush_next(reg);
                return;
        }
        r = match_store_insert_input(reg->store, &row, on_flushed, reg);
        json_decref(root);
        free(rec.data);
        if (r < 0) {
                matches_flush_retry(reg);
                return;
        }
        reg->flushing = true;
}

