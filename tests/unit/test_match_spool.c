/* The spool record of a match input (store/matches.h): it carries
 * exactly the parameters of the input's INSERT, nulls included, survives a
 * trip through a real spool file, and anything else is refused. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "store/matches.h"
#include "store/spool.h"

static const struct match_store_input full = {
        .match_id = "12", .seq = "5", .time_us = "1234567", .seat = "2", .kind = "call",
        .input = "{\"kind\":\"call\",\"seat\":2,\"call\":3}", .hash = "0123456789abcdef",
        .refusal = "too_late", .reaction_us = "4321", .source = "referee", .who = "ref \"one\"\n",
        .state = "finished", .result = "{\"winner\":1}",
};

static void assert_field(const char *a, const char *b) {
        if (!a || !b)
                assert_ptr_equal(a, b);
        else
                assert_string_equal(a, b);
}

static void assert_input_equal(const struct match_store_input *a, const struct match_store_input *b) {
        assert_field(a->match_id, b->match_id);
        assert_field(a->seq, b->seq);
        assert_field(a->time_us, b->time_us);
        assert_field(a->seat, b->seat);
        assert_field(a->kind, b->kind);
        assert_field(a->input, b->input);
        assert_field(a->hash, b->hash);
        assert_field(a->refusal, b->refusal);
        assert_field(a->reaction_us, b->reaction_us);
        assert_field(a->source, b->source);
        assert_field(a->who, b->who);
        assert_field(a->state, b->state);
        assert_field(a->result, b->result);
}

static void every_column_round_trips(void **state) {
        struct match_store_input back;
        json_t *root;
        (void) state;

        char *text = match_store_input_to_record(&full);
        assert_non_null(text);
        assert_null(strchr(text, '\n'));        /* compact */
        assert_int_equal(match_store_input_from_record(text, strlen(text), &back, &root), 0);
        assert_input_equal(&back, &full);
        json_decref(root);
        free(text);
}

static void null_columns_stay_null(void **state) {
        struct match_store_input in = full, back;
        json_t *root;
        (void) state;

        in.seat = in.refusal = in.reaction_us = in.result = NULL;
        char *text = match_store_input_to_record(&in);
        assert_non_null(text);
        assert_int_equal(match_store_input_from_record(text, strlen(text), &back, &root), 0);
        assert_input_equal(&back, &in);
        json_decref(root);
        free(text);
}

static void other_records_are_refused(void **state) {
        static const char *const bad[] = {
                "", "not json", "[]", "\"x\"", "{}",
                /* seq missing */
                "{\"match_id\":\"1\",\"time_us\":\"1\",\"seat\":null,\"kind\":\"start\",\"input\":\"{}\","
                "\"hash\":\"h\",\"refusal\":null,\"reaction_us\":null,\"source\":\"referee\",\"who\":\"w\","
                "\"state\":\"running\",\"result\":null}",
                /* a required column null */
                "{\"match_id\":null,\"seq\":\"1\",\"time_us\":\"1\",\"seat\":null,\"kind\":\"start\",\"input\":\"{}\","
                "\"hash\":\"h\",\"refusal\":null,\"reaction_us\":null,\"source\":\"referee\",\"who\":\"w\","
                "\"state\":\"running\",\"result\":null}",
                /* a number where text belongs */
                "{\"match_id\":\"1\",\"seq\":1,\"time_us\":\"1\",\"seat\":null,\"kind\":\"start\",\"input\":\"{}\","
                "\"hash\":\"h\",\"refusal\":null,\"reaction_us\":null,\"source\":\"referee\",\"who\":\"w\","
                "\"state\":\"running\",\"result\":null}",
        };
        struct match_store_input back;
        json_t *root;
        (void) state;

        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                if (match_store_input_from_record(bad[i], strlen(bad[i]), &back, &root) != -EBADMSG)
                        fail_msg("accepted: %s", bad[i]);
                assert_null(root);
                assert_null(back.match_id);
        }
}

struct collected {
        size_t n;
        struct match_store_input in[4];
        json_t *roots[4];
};

static int collect(void *userdata, const void *data, size_t len) {
        struct collected *c = userdata;

        assert_true(c->n < 4);
        assert_int_equal(match_store_input_from_record(data, len, &c->in[c->n], &c->roots[c->n]), 0);
        c->n++;
        return 0;
}

/* In order, through a real spool file, across a reopen. */
static void records_come_back_from_the_spool_in_order(void **state) {
        char path[] = "/tmp/arbiter-test-spool-XXXXXX";
        struct match_store_input second = full;
        struct collected c = { 0 };
        struct spool *sp;
        size_t records, cut;
        int fd = mkstemp(path);
        (void) state;

        assert_true(fd >= 0);
        close(fd);
        second.seq = "6";
        second.result = NULL;
        assert_int_equal(spool_open(path, &sp, &records, &cut), 0);
        assert_int_equal(records, 0);
        const struct match_store_input *rows[] = { &full, &second };
        for (size_t i = 0; i < 2; i++) {
                char *text = match_store_input_to_record(rows[i]);
                assert_int_equal(spool_append(sp, text, strlen(text)), 0);
                free(text);
        }
        spool_close(sp);
        assert_int_equal(spool_open(path, &sp, &records, &cut), 0);
        assert_int_equal(records, 2);
        assert_int_equal(cut, 0);
        assert_int_equal(spool_foreach(sp, collect, &c), 0);
        assert_int_equal(c.n, 2);
        assert_input_equal(&c.in[0], &full);
        assert_input_equal(&c.in[1], &second);
        for (size_t i = 0; i < c.n; i++)
                json_decref(c.roots[i]);
        spool_close(sp);
        unlink(path);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(every_column_round_trips),
                cmocka_unit_test(null_columns_stay_null),
                cmocka_unit_test(other_records_are_refused),
                cmocka_unit_test(records_come_back_from_the_spool_in_order),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
