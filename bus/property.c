/* bus/property.c — see property.h. */
#include "bus/property.h"

/* One getter per C type; the D-Bus type is the vtable entry's signature,
 * which the macros of property.h pair with the getter. */
#define GETTER(fn, ctype, dbus_type, value)                                                              \
        int fn(sd_bus *bus, const char *path, const char *interface, const char *property,              \
               sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {                        \
                const ctype *field = userdata;                                                          \
                                                                                                        \
                (void) bus, (void) path, (void) interface, (void) property, (void) ret_error;           \
                return sd_bus_message_append_basic(reply, dbus_type, value);                            \
        }

/* sd-bus reads a "b" as an int. */
GETTER(bus_property_get_bool, bool, 'b', &(int) { *field })
GETTER(bus_property_get_u8, uint8_t, 'y', field)
GETTER(bus_property_get_u32, uint32_t, 'u', field)
GETTER(bus_property_get_u64, uint64_t, 't', field)
GETTER(bus_property_get_i64, int64_t, 'x', field)
GETTER(bus_property_get_i64_t, int64_t, 't', &(uint64_t) { (uint64_t) *field })
GETTER(bus_property_get_string, char *const, 's', *field ? *field : "")
GETTER(bus_property_get_chars, char, 's', field)
