/* The web pages (api/web.h) served by a real arbiterd from a web root the
 * test writes: files and their types, "/" and extension-less paths,
 * directories, ETags and 304, the headers that keep a page's URL private,
 * and every way out of the root refused: "..", encoded or not, hidden
 * files, a symbolic link.  A daemon whose web root is missing says so at
 * start and on every page. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/harness.h"

#define INDEX_TEXT      "<!doctype html><title>arbiter</title><p>index</p>\n"
#define BOARD_TEXT      "<!doctype html><title>scoreboard</title>\n"
#define CSS_TEXT        "body { color: #111; }\n"
#define JS_TEXT         "export const x = 1;\n"
#define GAMES_TEXT      "<!doctype html><title>games</title>\n"
#define SECRET_TEXT     "not for the web\n"

static struct daemon_proc daemon_;
static char *root;

struct page {
        long status;
        char *body;
        size_t len;
        char type[128], etag[64], location[256], csp[512], referrer[64], nosniff[32], allow[64];
};

static size_t on_body(char *data, size_t size, size_t n, void *userdata) {
        struct page *p = userdata;
        char *b = realloc(p->body, p->len + size * n + 1);

        if (!b)
                return 0;
        memcpy(b + p->len, data, size * n);
        p->len += size * n;
        b[p->len] = '\0';
        p->body = b;
        return size * n;
}

/* Copies the value of header name (any case) from line into buf. */
static void header_value(const char *line, size_t n, const char *name, char *buf, size_t len) {
        size_t k = strlen(name);

        if (n <= k + 1 || strncasecmp(line, name, k) != 0 || line[k] != ':')
                return;
        line += k + 1;
        n -= k + 1;
        while (n && (*line == ' ' || *line == '\t'))
                line++, n--;
        while (n && (line[n - 1] == '\r' || line[n - 1] == '\n'))
                n--;
        snprintf(buf, len, "%.*s", (int) n, line);
}

static size_t on_header(char *line, size_t size, size_t n, void *userdata) {
        struct page *p = userdata;

        header_value(line, size * n, "Content-Type", p->type, sizeof p->type);
        header_value(line, size * n, "ETag", p->etag, sizeof p->etag);
        header_value(line, size * n, "Location", p->location, sizeof p->location);
        header_value(line, size * n, "Content-Security-Policy", p->csp, sizeof p->csp);
        header_value(line, size * n, "Referrer-Policy", p->referrer, sizeof p->referrer);
        header_value(line, size * n, "X-Content-Type-Options", p->nosniff, sizeof p->nosniff);
        header_value(line, size * n, "Allow", p->allow, sizeof p->allow);
        return size * n;
}

/* One request, the path sent exactly as given (no "../" folded by curl). */
static void fetch(const struct daemon_proc *d, const char *method, const char *path, const char *header,
                  struct page *ret) {
        char url[1024];
        struct curl_slist *headers = header ? curl_slist_append(NULL, header) : NULL;
        CURL *c = curl_easy_init();

        memset(ret, 0, sizeof *ret);
        assert_non_null(c);
        snprintf(url, sizeof url, "%s%s", d->url, path);
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
        if (strcmp(method, "HEAD") == 0)
                curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, ret);
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, ret);
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long) HARNESS_WAIT_MS);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        if (headers)
                curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
        if (curl_easy_perform(c) != CURLE_OK)
                fail_msg("%s %s: no answer", method, path);
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &ret->status);
        curl_easy_cleanup(c);
        curl_slist_free_all(headers);
        if (!ret->body)
                ret->body = strdup("");
}

static void page_done(struct page *p) {
        free(p->body);
        p->body = NULL;
}

static void write_file(const char *rel, const char *text) {
        char path[512];
        FILE *f;

        snprintf(path, sizeof path, "%s/%s", root, rel);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static int setup(void **state) {
        char dir[512], env[600];
        const char *extra[] = { env, NULL };
        (void) state;

        assert_true(asprintf(&root, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("web")) > 0);
        assert_int_equal(mkdir(root, 0755), 0);
        snprintf(dir, sizeof dir, "%s/css", root);
        assert_int_equal(mkdir(dir, 0755), 0);
        snprintf(dir, sizeof dir, "%s/js", root);
        assert_int_equal(mkdir(dir, 0755), 0);
        snprintf(dir, sizeof dir, "%s/games", root);
        assert_int_equal(mkdir(dir, 0755), 0);
        write_file("index.html", INDEX_TEXT);
        write_file("scoreboard.html", BOARD_TEXT);
        write_file("css/app.css", CSS_TEXT);
        write_file("js/app.js", JS_TEXT);
        write_file("games/index.html", GAMES_TEXT);
        write_file(".secret", SECRET_TEXT);
        snprintf(dir, sizeof dir, "%s/link.html", root);
        assert_int_equal(symlink("/etc/passwd", dir), 0);
        snprintf(env, sizeof env, "ARBITER_WEB=%s", root);
        daemon_start(&daemon_, extra, NULL, true);
        return 0;
}

static int teardown(void **state) {
        (void) state;
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        free(root);
        return st == 0 ? 0 : -1;
}

static void pages_are_the_files_with_their_types(void **state) {
        static const struct {
                const char *path, *text, *type;
        } cases[] = {
                { "/", INDEX_TEXT, "text/html; charset=utf-8" },
                { "/index.html", INDEX_TEXT, "text/html; charset=utf-8" },
                { "/scoreboard", BOARD_TEXT, "text/html; charset=utf-8" },
                { "/scoreboard.html", BOARD_TEXT, "text/html; charset=utf-8" },
                { "/scoreboard?table=2&seat=1", BOARD_TEXT, "text/html; charset=utf-8" },
                { "/css/app.css", CSS_TEXT, "text/css; charset=utf-8" },
                { "/js/app.js", JS_TEXT, "text/javascript; charset=utf-8" },
                { "/games/", GAMES_TEXT, "text/html; charset=utf-8" },
        };
        struct page p;
        (void) state;

        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                fetch(&daemon_, "GET", cases[i].path, NULL, &p);
                if (p.status != 200)
                        fail_msg("GET %s: %ld %s", cases[i].path, p.status, p.body);
                assert_string_equal(p.body, cases[i].text);
                assert_string_equal(p.type, cases[i].type);
                /* a page's URL may hold a seat token: it leaks nowhere */
                assert_string_equal(p.referrer, "no-referrer");
                assert_string_equal(p.nosniff, "nosniff");
                assert_non_null(strstr(p.csp, "default-src 'self'"));
                assert_true(p.etag[0] == '"');
                page_done(&p);
        }
        fetch(&daemon_, "HEAD", "/", NULL, &p);
        assert_int_equal(p.status, 200);
        assert_int_equal(p.len, 0);
        page_done(&p);
}

static void an_unchanged_page_is_304_and_a_changed_one_is_sent(void **state) {
        char inm[128];
        struct page p;
        (void) state;

        fetch(&daemon_, "GET", "/css/app.css", NULL, &p);
        assert_int_equal(p.status, 200);
        snprintf(inm, sizeof inm, "If-None-Match: %s", p.etag);
        page_done(&p);
        fetch(&daemon_, "GET", "/css/app.css", inm, &p);
        assert_int_equal(p.status, 304);
        assert_int_equal(p.len, 0);
        page_done(&p);
        write_file("css/app.css", CSS_TEXT "p { margin: 0; }\n");
        fetch(&daemon_, "GET", "/css/app.css", inm, &p);
        assert_int_equal(p.status, 200);
        assert_string_equal(p.body, CSS_TEXT "p { margin: 0; }\n");
        page_done(&p);
}

static void a_directory_is_redirected_to_its_index(void **state) {
        struct page p;
        (void) state;

        fetch(&daemon_, "GET", "/games", NULL, &p);
        assert_int_equal(p.status, 301);
        assert_string_equal(p.location, "/games/");
        page_done(&p);
}

static void nothing_outside_the_root_or_hidden_is_served(void **state) {
        static const char *const paths[] = {
                "/nope", "/.secret", "/css/../.secret", "/../etc/passwd", "/css/../../etc/passwd",
                "/%2e%2e/etc/passwd", "/css/%2e%2e/.secret", "/link.html", "/link", "//index.html",
                "/css//app.css", "/a%5cb", "/" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        };
        struct page p;
        (void) state;

        for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
                fetch(&daemon_, "GET", paths[i], NULL, &p);
                if (p.status != 404)
                        fail_msg("GET %s: %ld, not 404", paths[i], p.status);
                assert_null(strstr(p.body, "root:"));
                assert_null(strstr(p.body, "not for the web"));
                assert_non_null(strstr(p.body, "404"));
                page_done(&p);
        }
}

static void pages_take_get_and_head_and_the_api_stays_the_api(void **state) {
        struct page p;
        (void) state;

        fetch(&daemon_, "POST", "/", NULL, &p);
        assert_int_equal(p.status, 405);
        assert_string_equal(p.allow, "GET, HEAD");
        page_done(&p);
        fetch(&daemon_, "GET", "/v1/health", NULL, &p);
        assert_int_equal(p.status, 200);
        assert_string_equal(p.type, "application/json");
        page_done(&p);
        fetch(&daemon_, "GET", "/v1/nothing-here", NULL, &p);
        assert_int_equal(p.status, 404);
        assert_string_equal(p.type, "application/problem+json");
        page_done(&p);
        /* "/v1x" is not under /v1: a page, and none */
        fetch(&daemon_, "GET", "/v1x", NULL, &p);
        assert_int_equal(p.status, 404);
        assert_string_equal(p.type, "text/plain; charset=utf-8");
        page_done(&p);
}

static void a_missing_web_root_is_a_warning_and_a_404_that_says_why(void **state) {
        struct daemon_proc d;
        char env[600];
        /* a second daemon: the first holds the bus name */
        const char *extra[] = { env, "ARBITER_BUS=none", NULL };
        struct page p;
        (void) state;

        snprintf(env, sizeof env, "ARBITER_WEB=%s/missing-%s", harness_env("ARBITER_TEST_TMP"), unique_name("w"));
        daemon_start(&d, extra, NULL, true);
        assert_true(daemon_log_contains(&d, "web_root"));
        fetch(&d, "GET", "/", NULL, &p);
        assert_int_equal(p.status, 404);
        assert_non_null(strstr(p.body, "web_root"));
        assert_non_null(strstr(p.body, "missing-"));
        page_done(&p);
        fetch(&d, "GET", "/v1/health", NULL, &p);
        assert_int_equal(p.status, 200);
        page_done(&p);
        assert_int_equal(daemon_stop(&d, SIGTERM, NULL), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(pages_are_the_files_with_their_types),
                cmocka_unit_test(an_unchanged_page_is_304_and_a_changed_one_is_sent),
                cmocka_unit_test(a_directory_is_redirected_to_its_index),
                cmocka_unit_test(nothing_outside_the_root_or_hidden_is_served),
                cmocka_unit_test(pages_take_get_and_head_and_the_api_stays_the_api),
                cmocka_unit_test(a_missing_web_root_is_a_warning_and_a_404_that_says_why),
        };
        return cmocka_run_group_tests_name("web_pages", tests, setup, teardown);
}
