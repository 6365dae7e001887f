/* daemon/fdlimit.c — see fdlimit.h. */
#define _GNU_SOURCE
#include "daemon/fdlimit.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "common/log.h"

unsigned long fdlimit_raise(unsigned long need) {
        struct rlimit rl;
        rlim_t was;

        if (prlimit(0, RLIMIT_NOFILE, NULL, &rl) < 0) {
                log_warning_errno(errno, "cannot read the open-file limit: %s", strerror(errno));
                return 0;
        }
        was = rl.rlim_cur;
        if (rl.rlim_cur != rl.rlim_max) {
                rl.rlim_cur = rl.rlim_max;
                /* prlimit(), not setrlimit(): the unit's system call filter
                 * takes away @resources, setrlimit with it, and keeps
                 * prlimit64 (systemd-analyze syscall-filter). */
                if (prlimit(0, RLIMIT_NOFILE, &rl, NULL) < 0) {
                        log_warning_errno(errno, "cannot raise the open-file limit from %llu to %llu: %s",
                                          (unsigned long long) was, (unsigned long long) rl.rlim_max,
                                          strerror(errno));
                        rl.rlim_cur = was;
                }
        }
        if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need)
                log_warning("open files: the limit is %llu (hard %llu), below the %lu that [http] "
                            "max_connections needs with the daemon's own; connections over it will be "
                            "refused: raise LimitNOFILE= in the unit (or ulimit -Hn), or lower "
                            "max_connections",
                            (unsigned long long) rl.rlim_cur, (unsigned long long) rl.rlim_max, need);
        else if (rl.rlim_cur != was)
                log_info("open files: limit raised from %llu to %llu (%lu needed)", (unsigned long long) was,
                         (unsigned long long) rl.rlim_cur, need);
        else
                log_info("open files: limit %llu (%lu needed)", (unsigned long long) rl.rlim_cur, need);
        return (unsigned long) rl.rlim_cur;
}
