/* tools/arbiterctl/complete.c — see complete.h. */
#include <stdio.h>
#include <string.h>

#include "tools/arbiterctl/complete.h"
#include "tools/arbiterctl/ctl.h"
#include "tools/arbiterctl/registry.h"

static void words(const char *list) {
        for (const char *p = list; p && *p;) {
                size_t n = strcspn(p, " ");
                if (n)
                        printf("%.*s\n", (int) n, p);
                p += n + (p[n] == ' ');
        }
}

static void options(const struct opt *opts) {
        for (const struct opt *o = opts; o && o->name; o++)
                printf("--%s\n", o->name);
}

/* The value an option takes, offered as its choices or as files. */
static void option_value(const struct opt *o) {
        if (o->choices)
                words(o->choices);
        else if (o->metavar && strcmp(o->metavar, "FILE") == 0)
                puts(COMPLETE_FILES);
}

int complete_run(int argc, char **argv) {
        const struct noun *n = NULL;
        const struct verb *v = NULL;
        const struct opt *pending = NULL;   /* the option whose value comes next */
        const char *current;
        int n_pos = 0;

        current = argc > 0 ? argv[argc - 1] : "";
        for (int i = 0; i + 1 < argc; i++) {
                const char *w = argv[i];
                if (pending) {
                        pending = NULL;
                        continue;
                }
                if (w[0] == '-' && w[1]) {
                        const struct opt *o = w[1] == '-' ? registry_opt(v ? v->opts : NULL, w + 2, false)
                                                          : registry_opt(v ? v->opts : NULL, w + 1, true);
                        if (o && o->kind != OPT_FLAG && !strchr(w, '='))
                                pending = o;
                        continue;
                }
                if (!n) {
                        n = registry_noun(w);
                        if (!n)
                                return CTL_EXIT_OK;
                        v = registry_bare_verb(n);
                } else if (!v) {
                        v = registry_verb(n, w);
                        if (!v)
                                return CTL_EXIT_OK;
                } else {
                        n_pos++;
                }
        }
        if (pending) {
                option_value(pending);
                return CTL_EXIT_OK;
        }
        if (current[0] == '-') {
                options(v ? v->opts : NULL);
                options(global_opts);
                puts("--help");
                return CTL_EXIT_OK;
        }
        if (!n) {
                for (const struct noun *const *p = registry_nouns; *p; p++)
                        puts((*p)->name);
                puts("help");
        } else if (!v) {
                for (const struct verb *p = n->verbs; p->name; p++)
                        if (*p->name)
                                puts(p->name);
        } else if (n_pos == v->choices_arg && v->arg_choices) {
                words(v->arg_choices);
        }
        return CTL_EXIT_OK;
}
