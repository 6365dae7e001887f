/* tools/arbiterctl/args.c — see args.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/arbiterctl/args.h"
#include "tools/arbiterctl/ctl.h"

/* Ids are positive 63-bit numbers on the server (bigserial). */
#define ID_MAX INT64_MAX

static int add_set(struct args *a, const struct opt *o, const char *value) {
        if (a->n_set >= ARGS_MAX) {
                ctl_fail(CTL_EXIT_USAGE, "too many options (at most %d)", ARGS_MAX);
                return -EINVAL;
        }
        a->set[a->n_set].opt = o;
        a->set[a->n_set].value = value;
        a->n_set++;
        return 0;
}

/* One option word at argv[*i]; advances *i past its value. */
static int parse_option(const struct verb *v, int argc, char **argv, int *i, struct args *a) {
        const char *word = argv[*i], *value = NULL;
        char name[64];
        bool is_short = word[1] != '-';
        const struct opt *o;

        if (is_short) {
                if (strlen(word) != 2) {
                        ctl_fail(CTL_EXIT_USAGE, "%s: unknown option (long options start with --)", word);
                        return -EINVAL;
                }
                snprintf(name, sizeof name, "%c", word[1]);
        } else {
                const char *eq = strchr(word + 2, '=');
                size_t len = eq ? (size_t) (eq - word - 2) : strlen(word + 2);
                if (len == 0 || len >= sizeof name) {
                        ctl_fail(CTL_EXIT_USAGE, "%s: unknown option", word);
                        return -EINVAL;
                }
                memcpy(name, word + 2, len);
                name[len] = '\0';
                value = eq ? eq + 1 : NULL;
        }
        if (strcmp(name, "help") == 0 || strcmp(name, "h") == 0) {
                a->help = true;
                return 0;
        }
        o = registry_opt(v ? v->opts : NULL, name, is_short);
        if (!o) {
                if (v && v->name)
                        ctl_fail(CTL_EXIT_USAGE, "%s: no such option of \"%s%s%s\" (see --help)", word,
                                 a->noun ? a->noun->name : "", *v->name ? " " : "", v->name);
                else
                        ctl_fail(CTL_EXIT_USAGE, "%s: unknown option (see --help)", word);
                return -EINVAL;
        }
        if (o->kind == OPT_FLAG) {
                if (value) {
                        ctl_fail(CTL_EXIT_USAGE, "--%s takes no value", o->name);
                        return -EINVAL;
                }
                return add_set(a, o, NULL);
        }
        if (!value) {
                if (*i + 1 >= argc) {
                        ctl_fail(CTL_EXIT_USAGE, "--%s needs a value (%s)", o->name, o->metavar ? o->metavar : "VALUE");
                        return -EINVAL;
                }
                value = argv[++*i];
        }
        return add_set(a, o, value);
}

int args_parse(const struct verb *v, int argc, char **argv, struct args *a, int *ret_used) {
        bool options_done = false;
        int i, r;

        for (i = 0; i < argc; i++) {
                const char *word = argv[i];
                if (!options_done && strcmp(word, "--") == 0) {
                        options_done = true;
                        continue;
                }
                if (!options_done && word[0] == '-' && word[1] != '\0') {
                        r = parse_option(v, argc, argv, &i, a);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (!v)
                        break;          /* the noun: the caller goes on from here */
                if (a->n_pos >= ARGS_MAX) {
                        ctl_fail(CTL_EXIT_USAGE, "too many arguments (at most %d)", ARGS_MAX);
                        return -EINVAL;
                }
                a->pos[a->n_pos++] = word;
        }
        if (ret_used)
                *ret_used = i;
        return 0;
}

const char *args_get(const struct args *a, const char *name) {
        const char *value = NULL;

        for (int i = 0; i < a->n_set; i++)
                if (strcmp(a->set[i].opt->name, name) == 0)
                        value = a->set[i].value ? a->set[i].value : "";
        return value;
}

bool args_flag(const struct args *a, const char *name) {
        return args_get(a, name) != NULL;
}

const char *args_nth(const struct args *a, const char *name, int n) {
        for (int i = 0; i < a->n_set; i++)
                if (strcmp(a->set[i].opt->name, name) == 0 && n-- == 0)
                        return a->set[i].value;
        return NULL;
}

int args_parse_int(const char *text, const char *what, int64_t min, int64_t max, int64_t *ret) {
        char *end;
        long long v;

        errno = 0;
        v = strtoll(text, &end, 10);
        if (!*text || *end || errno || text[0] == ' ' || text[0] == '+' || v < min || v > max) {
                if (max == ID_MAX)
                        ctl_fail(CTL_EXIT_USAGE, "%s: \"%s\" is not a whole number of at least %" PRId64, what, text,
                                 min);
                else
                        ctl_fail(CTL_EXIT_USAGE, "%s: \"%s\" is not a whole number %" PRId64 "..%" PRId64, what,
                                 text, min, max);
                return -EINVAL;
        }
        *ret = v;
        return 0;
}

int args_parse_id(const char *text, const char *what, int64_t *ret) {
        return args_parse_int(text, what, 1, ID_MAX, ret);
}

int args_pos_id(const struct args *a, int i, const char *what, int64_t *ret) {
        return args_parse_id(a->pos[i], what, ret);
}

int args_opt_id(const struct args *a, const char *name, int64_t *ret) {
        const char *v = args_get(a, name);
        char what[64];

        if (!v)
                return 0;
        snprintf(what, sizeof what, "--%s", name);
        return args_parse_id(v, what, ret);
}

int args_tournament(const struct args *a, int64_t *ret) {
        const char *v = args_get(a, "tournament");

        if (v)
                return args_parse_id(v, "--tournament", ret);
        v = getenv("ARBITER_TOURNAMENT");
        if (v && *v)
                return args_parse_id(v, "$ARBITER_TOURNAMENT", ret);
        ctl_fail(CTL_EXIT_USAGE, "which tournament? give -t ID (or set $ARBITER_TOURNAMENT)");
        return -EINVAL;
}

int args_load_json(const char *spec, const char *what, json_t **ret) {
        json_error_t err;
        json_t *j;

        if (strcmp(spec, "-") == 0 || strcmp(spec, "@-") == 0) {
                j = json_loadf(stdin, JSON_DECODE_ANY, &err);
                if (!j) {
                        ctl_fail(CTL_EXIT_USAGE, "%s: standard input is not JSON: %s (line %d)", what, err.text,
                                 err.line);
                        return -EINVAL;
                }
        } else if (spec[0] == '@') {
                FILE *f = fopen(spec + 1, "r");
                if (!f) {
                        ctl_fail(CTL_EXIT_USAGE, "%s: cannot read %s: %s", what, spec + 1, strerror(errno));
                        return -EINVAL;
                }
                j = json_loadf(f, JSON_DECODE_ANY, &err);
                fclose(f);
                if (!j) {
                        ctl_fail(CTL_EXIT_USAGE, "%s: %s is not JSON: %s (line %d)", what, spec + 1, err.text,
                                 err.line);
                        return -EINVAL;
                }
        } else {
                j = json_loads(spec, JSON_DECODE_ANY, &err);
                if (!j) {
                        ctl_fail(CTL_EXIT_USAGE, "%s: not JSON: %s (at character %d); use @FILE for a file",
                                 what, err.text, err.position);
                        return -EINVAL;
                }
        }
        *ret = j;
        return 0;
}

int args_body(const struct args *a, json_t **ret) {
        const char *spec = args_get(a, "data");
        json_t *j;
        int r;

        if (!spec) {
                *ret = json_object();
                return *ret ? 0 : -ENOMEM;
        }
        r = args_load_json(spec, "--data", &j);
        if (r < 0)
                return r;
        if (!json_is_object(j)) {
                json_decref(j);
                ctl_fail(CTL_EXIT_USAGE, "--data: must be a JSON object ({...})");
                return -EINVAL;
        }
        *ret = j;
        return 0;
}

int args_split(const char *text, char *buf, size_t size, const char **ret_key, const char **ret_value) {
        char *eq;

        if (snprintf(buf, size, "%s", text) >= (int) size)
                return -E2BIG;
        eq = strchr(buf, '=');
        if (!eq || eq == buf)
                return -EINVAL;
        *eq = '\0';
        *ret_key = buf;
        *ret_value = eq + 1;
        return 0;
}

int args_set_kv(json_t *obj, const char *kv, const char *what) {
        /* A field name and a short value; a long one belongs in --data. */
        char buf[4096];
        const char *key, *value;
        json_t *v;

        if (args_split(kv, buf, sizeof buf, &key, &value) < 0) {
                ctl_fail(CTL_EXIT_USAGE, "%s: \"%s\" is not NAME=VALUE", what, kv);
                return -EINVAL;
        }
        v = json_loads(value, JSON_DECODE_ANY, NULL);
        if (!v)
                v = json_string(value);
        if (!v || json_object_set_new(obj, key, v) < 0) {
                ctl_fail(CTL_EXIT_USAGE, "%s: \"%s\": the value is not valid UTF-8", what, kv);
                return -EINVAL;
        }
        return 0;
}
