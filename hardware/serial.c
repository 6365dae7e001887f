/* hardware/serial.c — see serial.h. */
#include "hardware/serial.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/serial.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

static const struct {
        unsigned baud;
        speed_t speed;
} speeds[] = {
        { 9600, B9600 }, { 19200, B19200 }, { 38400, B38400 }, { 57600, B57600 },
        { 115200, B115200 }, { 230400, B230400 }, { 460800, B460800 }, { 500000, B500000 },
        { 576000, B576000 }, { 921600, B921600 }, { 1000000, B1000000 }, { 1152000, B1152000 },
        { 1500000, B1500000 }, { 2000000, B2000000 }, { 2500000, B2500000 }, { 3000000, B3000000 },
        { 3500000, B3500000 }, { 4000000, B4000000 },
};

unsigned serial_speed(unsigned baud) {
        for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
                if (speeds[i].baud == baud)
                        return speeds[i].speed;
        return 0;
}

/* ASYNC_LOW_LATENCY makes the tty layer push received bytes at once. */
static bool set_low_latency(int fd) {
        struct serial_struct ss;

        if (ioctl(fd, TIOCGSERIAL, &ss) < 0)
                return false;           /* ENOTTY on ptys and many USB CDC devices */
        ss.flags |= ASYNC_LOW_LATENCY;
        return ioctl(fd, TIOCSSERIAL, &ss) == 0;
}

int serial_open(const char *path, unsigned baud, bool *ret_low_latency) {
        speed_t speed = serial_speed(baud);
        struct termios t;
        int fd, r;

        if (!speed)
                return -EINVAL;
        fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (ioctl(fd, TIOCEXCL) < 0 && errno != ENOTTY) {
                r = -errno;
                close(fd);
                return r;
        }
        if (tcgetattr(fd, &t) < 0) {
                r = -errno;
                close(fd);
                return r;
        }
        cfmakeraw(&t);
        t.c_cflag |= CLOCAL | CREAD;
        t.c_cflag &= ~(CSTOPB | PARENB | CRTSCTS);
        t.c_cc[VMIN] = 0;
        t.c_cc[VTIME] = 0;
        cfsetispeed(&t, speed);
        cfsetospeed(&t, speed);
        if (tcsetattr(fd, TCSANOW, &t) < 0) {
                r = -errno;
                close(fd);
                return r;
        }
        tcflush(fd, TCIOFLUSH);
        if (ret_low_latency)
                *ret_low_latency = set_low_latency(fd);
        return fd;
}
