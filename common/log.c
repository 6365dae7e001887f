/* common/log.c — see log.h. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include "common/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

static int max_level = LOG_INFO;
static bool to_journal;
static const char *log_ident = "arbiterd";

static const char *const level_names[] = {
        [LOG_EMERG] = "emerg", [LOG_ALERT] = "alert", [LOG_CRIT] = "crit",
        [LOG_ERR] = "error", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
        [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

/* JOURNAL_STREAM is "DEV:INODE" of the stream systemd connected to our
 * stderr; it only counts if stderr is still that stream (a child whose
 * stderr was redirected must not write to the journal behind its parent). */
static bool stderr_is_journal(void) {
        const char *e = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;

        if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
                return false;
        if (fstat(STDERR_FILENO, &st) < 0)
                return false;
        return (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
}

void log_setup(const char *ident) {
        if (ident)
                log_ident = ident;
        to_journal = stderr_is_journal() ||
                     (getenv("INVOCATION_ID") && !isatty(STDERR_FILENO) && !getenv("JOURNAL_STREAM"));
}

void log_set_level(int level) {
        if (level >= LOG_EMERG && level <= LOG_DEBUG)
                max_level = level;
}

int log_get_level(void) {
        return max_level;
}

int log_level_from_string(const char *s) {
        for (int i = LOG_EMERG; i <= LOG_DEBUG; i++)
                if (s && strcmp(s, level_names[i]) == 0)
                        return i;
        return -EINVAL;
}

const char *log_level_to_string(int level) {
        if (level < LOG_EMERG || level > LOG_DEBUG)
                return "unknown";
        return level_names[level];
}

int log_internal(int level, int err, const char *file, int line, const char *func,
                 const char *fmt, ...) {
        int saved_errno = errno;
        char msg[2048];
        va_list ap;

        err = err < 0 ? -err : err;
        if (level > max_level)
                return -err;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);

        if (to_journal) {
                char code_line[32];
                snprintf(code_line, sizeof code_line, "CODE_LINE=%d", line);
                if (err > 0)
                        sd_journal_send("MESSAGE=%s", msg, "PRIORITY=%d", level,
                                        "CODE_FILE=%s", file, code_line, "CODE_FUNC=%s", func,
                                        "ERRNO=%d", err, "SYSLOG_IDENTIFIER=%s", log_ident, NULL);
                else
                        sd_journal_send("MESSAGE=%s", msg, "PRIORITY=%d", level,
                                        "CODE_FILE=%s", file, code_line, "CODE_FUNC=%s", func,
                                        "SYSLOG_IDENTIFIER=%s", log_ident, NULL);
        } else {
                fprintf(stderr, "%s[%d]: %s: %s\n", log_ident, (int) getpid(),
                        level_names[level], msg);
        }
        errno = saved_errno;
        return -err;
}
