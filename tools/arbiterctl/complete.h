/* tools/arbiterctl/complete.h — the words the bash completion offers,
 * answered from the registry by the binary itself, so that the completion
 * (tools/arbiterctl/arbiterctl.bash) never disagrees with the verbs.
 *
 *   arbiterctl __complete WORD... CURRENT
 *
 * WORD... are the words already typed after "arbiterctl", CURRENT the one
 * being completed (may be empty).  Prints the candidates, one a line: the
 * nouns, a noun's verbs, the options of the verb (and the global ones), an
 * option's or the first argument's choices — or the single line
 * COMPLETE_FILES when a file name is wanted.  The shell filters them by
 * CURRENT.  Always exits 0.
 */
#ifndef ARBITER_TOOLS_ARBITERCTL_COMPLETE_H
#define ARBITER_TOOLS_ARBITERCTL_COMPLETE_H

#define COMPLETE_COMMAND "__complete"
#define COMPLETE_FILES "__files__"

int complete_run(int argc, char **argv);

#endif
