# bash completion for arbiterctl — installed as
# $(PREFIX)/share/bash-completion/completions/arbiterctl.
#
# The words come from the binary itself (`arbiterctl __complete WORD...`,
# tools/arbiterctl/complete.h), which answers from the same tables it parses
# the command line with, so the completion never lists a verb or an option
# the binary does not have.  It asks nothing of the server.

_arbiterctl() {
    local cur=${COMP_WORDS[COMP_CWORD]}
    local words
    words=$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0
    if [[ $words == __files__ ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))
        compopt -o filenames 2>/dev/null
        return 0
    fi
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}

complete -F _arbiterctl arbiterctl
