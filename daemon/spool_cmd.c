/* daemon/spool_cmd.c — the operator's spool commands: `arbiterd
 * --spool-check`, `--spool-drop OFFSET` and `--spool-truncate-at OFFSET`
 * (docs/operations.md, "The spool"; store/spool.h, "Damage").
 *
 * A spool damaged in the middle stops the daemon: the whole records after
 * the damage were acknowledged, and only a person may give them up.  These
 * commands show what the file holds and make the one change the person
 * chose; none of them touches the database.  The repairs refuse while a
 * daemon has the spool open (its file lock).
 */
#include "daemon/service.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/matches.h"
#include "store/spool.h"

/* What a check found. */
struct check {
        uint64_t records, damaged, damaged_bytes, torn_bytes;
        uint64_t first_damage;          /* offset of the first damaged range */
        uint64_t records_after;         /* whole records after the first damage */
};

/* One line per item: a record says which input it is. */
static int print_item(void *userdata, const struct spool_item *it) {
        struct check *c = userdata;
        struct match_store_input in;
        json_t *root;

        switch (it->kind) {
        case SPOOL_ITEM_RECORD:
                c->records++;
                if (c->damaged)
                        c->records_after++;
                if (match_store_input_from_record(it->data, it->len, &in, &root) == 0) {
                        printf("at %" PRIu64 ": input, %" PRIu64 " bytes: match %s seq %s, %s by %s (%s)%s\n",
                               it->offset, it->length, in.match_id, in.seq, in.kind, in.who, in.source,
                               in.refusal ? ", refused" : "");
                        json_decref(root);
                } else {
                        printf("at %" PRIu64 ": a whole record, %" PRIu64 " bytes, that is no match input\n",
                               it->offset, it->length);
                }
                return 0;
        case SPOOL_ITEM_DAMAGED:
                if (!c->damaged)
                        c->first_damage = it->offset;
                c->damaged++;
                c->damaged_bytes += it->length;
                printf("at %" PRIu64 ": DAMAGED, %" PRIu64 " bytes; whole records follow\n", it->offset,
                       it->length);
                return 0;
        case SPOOL_ITEM_TORN_TAIL:
                c->torn_bytes = it->length;
                printf("at %" PRIu64 ": a torn tail, %" PRIu64 " bytes (a write cut short, never "
                       "acknowledged: arbiterd cuts it when it starts)\n", it->offset, it->length);
                return 0;
        }
        return 0;
}

static int why(const char *path, const char *what, int r) {
        if (r == -EBUSY)
                fprintf(stderr, "arbiterd: spool %s is open in a running arbiterd: stop it first "
                                "(systemctl stop arbiterd)\n", path);
        else
                fprintf(stderr, "arbiterd: cannot %s the spool %s: %s\n", what, path, strerror(-r));
        return r == -EINVAL ? EXIT_USAGE : EXIT_FAILURE;
}

int spool_cmd_check(const struct config *cfg) {
        const char *path = cfg->spool_path;
        struct check c = { 0 };
        int r;

        printf("spool %s\n", path);
        r = spool_scan(path, print_item, &c);
        if (r == -ENOENT) {
                printf("no spool file: nothing waits for the database\n");
                return EXIT_SUCCESS;
        }
        if (r < 0)
                return why(path, "read", r);
        printf("%" PRIu64 " whole record%s", c.records, c.records == 1 ? "" : "s");
        if (!c.damaged) {
                printf("; not damaged%s\n", c.torn_bytes ? " (the torn tail is cut at start)" : "");
                return EXIT_SUCCESS;
        }
        printf("; %" PRIu64 " damaged range%s (%" PRIu64 " bytes).\n"
               "arbiterd does not start on this spool: %" PRIu64 " acknowledged input%s follow the damage.\n"
               "Choose one, then start arbiterd:\n"
               "  arbiterd --spool-drop %" PRIu64 "         remove the damaged bytes, keep what follows\n"
               "  arbiterd --spool-truncate-at %" PRIu64 "  cut everything from there on (%" PRIu64
               " input%s lost)\n"
               "A match whose input was in the damaged bytes fails its replay check and waits for a referee.\n",
               c.damaged, c.damaged == 1 ? "" : "s", c.damaged_bytes, c.records_after,
               c.records_after == 1 ? "" : "s", c.first_damage, c.first_damage, c.records_after,
               c.records_after == 1 ? "" : "s");
        return EXIT_DATAERR;
}

int spool_cmd_truncate_at(const struct config *cfg, uint64_t offset) {
        uint64_t cut = 0;
        int r = spool_truncate_at(cfg->spool_path, offset, &cut);

        if (r == -EINVAL) {
                fprintf(stderr, "arbiterd: no record or damaged range of %s starts at byte %" PRIu64
                                "; arbiterd --spool-check lists where they do\n", cfg->spool_path, offset);
                return EXIT_USAGE;
        }
        if (r < 0)
                return why(cfg->spool_path, "cut", r);
        printf("spool %s: cut at byte %" PRIu64 ", %" PRIu64 " byte%s removed\n", cfg->spool_path, offset, cut,
               cut == 1 ? "" : "s");
        return EXIT_SUCCESS;
}

int spool_cmd_drop(const struct config *cfg, uint64_t offset) {
        uint64_t dropped = 0;
        int r = spool_drop(cfg->spool_path, offset, &dropped);

        if (r == -EINVAL) {
                fprintf(stderr, "arbiterd: no damaged range of %s starts at byte %" PRIu64
                                "; arbiterd --spool-check lists where one does\n", cfg->spool_path, offset);
                return EXIT_USAGE;
        }
        if (r < 0)
                return why(cfg->spool_path, "repair", r);
        printf("spool %s: %" PRIu64 " damaged byte%s at %" PRIu64 " removed; the records after them are kept\n",
               cfg->spool_path, dropped, dropped == 1 ? "" : "s", offset);
        return EXIT_SUCCESS;
}
