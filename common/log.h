/* common/log.h — leveled logging for every I/O module.
 *
 * Under systemd (JOURNAL_STREAM names our stderr, or INVOCATION_ID is set)
 * messages go to the journal as structured entries (MESSAGE, PRIORITY,
 * CODE_FILE, CODE_LINE, CODE_FUNC, plus ERRNO when given); otherwise they are
 * plain lines on stderr: "arbiterd[pid]: <level>: message".
 *
 * House rule: a function either logs its error or returns it, not both.
 * Levels are syslog's (LOG_ERR … LOG_DEBUG).  Not thread-safe beyond what
 * stdio and sd_journal_send give; arbiterd logs from its one loop thread.
 */
#ifndef ARBITER_COMMON_LOG_H
#define ARBITER_COMMON_LOG_H

#include <syslog.h>

/* Decide journal vs stderr from the environment.  Call once, early. */
void log_setup(const char *ident);

void log_set_level(int level);
int log_get_level(void);

/* "error", "warning", "notice", "info", "debug" → LOG_*; -EINVAL otherwise. */
int log_level_from_string(const char *s);
const char *log_level_to_string(int level);

/* Logs and returns -|err| (or 0 when err is 0), so a caller that owns the
 * decision to log can write `return log_errno(LOG_ERR, r, "…")`. */
int log_internal(int level, int err, const char *file, int line, const char *func,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#define log_full_errno(level, err, ...) \
        log_internal((level), (err), __FILE__, __LINE__, __func__, __VA_ARGS__)
#define log_error(...)   log_full_errno(LOG_ERR, 0, __VA_ARGS__)
#define log_warning(...) log_full_errno(LOG_WARNING, 0, __VA_ARGS__)
#define log_notice(...)  log_full_errno(LOG_NOTICE, 0, __VA_ARGS__)
#define log_info(...)    log_full_errno(LOG_INFO, 0, __VA_ARGS__)
#define log_debug(...)   log_full_errno(LOG_DEBUG, 0, __VA_ARGS__)
#define log_error_errno(err, ...)   log_full_errno(LOG_ERR, (err), __VA_ARGS__)
#define log_warning_errno(err, ...) log_full_errno(LOG_WARNING, (err), __VA_ARGS__)

#endif
