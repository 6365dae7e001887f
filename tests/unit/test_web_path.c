/* web_path (api/web.h): which file under the web root a URL path names,
 * and every path that can name none. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "api/web.h"

static void paths_name_files_under_the_root(void **state) {
        static const struct {
                const char *url, *file;
        } cases[] = {
                { "/", "index.html" },
                { "/index.html", "index.html" },
                { "/scoreboard", "scoreboard" },
                { "/games/", "games/index.html" },
                { "/games/crash-pilot/table.js", "games/crash-pilot/table.js" },
                { "/a_b-c.1.css", "a_b-c.1.css" },
        };
        char out[WEB_PATH_MAX];

        (void) state;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                assert_int_equal(web_path(cases[i].url, out, sizeof out), 0);
                assert_string_equal(out, cases[i].file);
        }
}

static void paths_that_could_leave_the_root_or_reach_hidden_files_name_none(void **state) {
        static const char *const bad[] = {
                "", "index.html", "//", "/a//b", "/..", "/../x", "/a/../b", "/a/..", "/.", "/./a", "/.git/config",
                "/a/.hidden", "/a\\b", "/a b", "/a%2e", "/\x01", "/caf\xc3\xa9", "/a?b",
        };
        char out[WEB_PATH_MAX], longer[WEB_PATH_MAX + 8], seg[WEB_SEGMENT_MAX + 3];

        (void) state;
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                if (web_path(bad[i], out, sizeof out) != -ENOENT)
                        fail_msg("\"%s\" named a file", bad[i]);
        assert_int_equal(web_path(NULL, out, sizeof out), -ENOENT);
        /* a segment of WEB_SEGMENT_MAX characters is one too long plus one */
        seg[0] = '/';
        memset(seg + 1, 'a', WEB_SEGMENT_MAX + 1);
        seg[WEB_SEGMENT_MAX + 2] = '\0';
        assert_int_equal(web_path(seg, out, sizeof out), -ENOENT);
        seg[WEB_SEGMENT_MAX + 1] = '\0';
        assert_int_equal(web_path(seg, out, sizeof out), 0);
        /* a whole path longer than WEB_PATH_MAX */
        for (size_t i = 0; i < sizeof longer - 1; i++)
                longer[i] = i % 10 == 0 ? '/' : 'a';
        longer[sizeof longer - 1] = '\0';
        assert_int_equal(web_path(longer, out, sizeof out), -ENOENT);
        /* the caller's buffer is respected */
        assert_int_equal(web_path("/scoreboard", out, 4), -ENOENT);
        assert_int_equal(web_path("/", out, 5), -ENOENT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(paths_name_files_under_the_root),
                cmocka_unit_test(paths_that_could_leave_the_root_or_reach_hidden_files_name_none),
        };
        return cmocka_run_group_tests_name("web_path", tests, NULL, NULL);
}
