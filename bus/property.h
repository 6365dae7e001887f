/* bus/property.h — typed getters for D-Bus properties that are fields of a
 * C struct, as systemd's own services declare theirs (bus_property_get_bool()
 * and BUS_DEFINE_PROPERTY_GET() in systemd's src/shared/bus-get-properties.h):
 * one getter per C type, reading the field at the vtable entry's offset.
 *
 * sd-bus calls a property's getter with the object's pointer plus the
 * entry's offset: the object is the vtable's userdata, or for a fallback
 * vtable what its find callback returned (sd_bus_add_fallback_vtable(3)).  So
 * an entry names a struct and one of its fields, and the getter reads that
 * field with its C type and appends it with its D-Bus type:
 *
 *     BUS_PROPERTY_BOOL    bool                       b
 *     BUS_PROPERTY_U8      uint8_t                    y
 *     BUS_PROPERTY_U32     uint32_t                   u
 *     BUS_PROPERTY_U64     uint64_t                   t
 *     BUS_PROPERTY_I64     int64_t                    x
 *     BUS_PROPERTY_I64_T   int64_t never negative     t   (ids, wall-clock µs)
 *     BUS_PROPERTY_STRING  char * (NULL is "")        s
 *     BUS_PROPERTY_CHARS   char[N], NUL-terminated    s
 *
 * Each macro checks at compile time that the field has the C type its getter
 * reads (BUS_PROPERTY_FIELD): sd-bus's own default getter (a NULL get) reads
 * a "b" as an int, four bytes where a C bool has one, and a "s" as a char *,
 * which an inline char array is not; a wrong pairing here does not compile.
 *
 * A property computed from several fields, from another object or by a
 * function (a pad's Kind, a match's State or View) keeps a getter of its own
 * in its module.
 *
 * Values are read live, at the Get or at the PropertiesChanged that bus.c
 * sends before the loop sleeps: never a copy that could lag the struct.
 *
 * Owns nothing; the getters allocate nothing and fail only when the reply
 * message does.
 */
#ifndef ARBITER_BUS_PROPERTY_H
#define ARBITER_BUS_PROPERTY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

/* offsetof(type, field), when field's type is ctype: otherwise the
 * _Static_assert in the (otherwise unused) struct fails the build. */
#define BUS_PROPERTY_FIELD_IF(type, field, ok, what)                                            \
        (offsetof(type, field) + 0 * sizeof(struct {                                            \
                 _Static_assert(ok, #type "." #field " is not " what);                          \
                 char c_;                                                                       \
         }))
#define BUS_PROPERTY_IS_(type, field, ctype) \
        __builtin_types_compatible_p(__typeof__(((type *) 0)->field), ctype)
#define BUS_PROPERTY_FIELD(type, field, ctype) \
        BUS_PROPERTY_FIELD_IF(type, field, BUS_PROPERTY_IS_(type, field, ctype), #ctype)

#define BUS_PROPERTY_BOOL(name, type, field, flags) \
        SD_BUS_PROPERTY(name, "b", bus_property_get_bool, BUS_PROPERTY_FIELD(type, field, bool), flags)
#define BUS_PROPERTY_U8(name, type, field, flags) \
        SD_BUS_PROPERTY(name, "y", bus_property_get_u8, BUS_PROPERTY_FIELD(type, field, uint8_t), flags)
#define BUS_PROPERTY_U32(name, type, field, flags) \
        SD_BUS_PROPERTY(name, "u", bus_property_get_u32, BUS_PROPERTY_FIELD(type, field, uint32_t), flags)
#define BUS_PROPERTY_U64(name, type, field, flags) \
        SD_BUS_PROPERTY(name, "t", bus_property_get_u64, BUS_PROPERTY_FIELD(type, field, uint64_t), flags)
#define BUS_PROPERTY_I64(name, type, field, flags) \
        SD_BUS_PROPERTY(name, "x", bus_property_get_i64, BUS_PROPERTY_FIELD(type, field, int64_t), flags)
#define BUS_PROPERTY_I64_T(name, type, field, flags) \
        SD_BUS_PROPERTY(name, "t", bus_property_get_i64_t, BUS_PROPERTY_FIELD(type, field, int64_t), flags)
#define BUS_PROPERTY_STRING(name, type, field, flags)                                           \
        SD_BUS_PROPERTY(name, "s", bus_property_get_string,                                     \
                        BUS_PROPERTY_FIELD_IF(type, field,                                      \
                                              BUS_PROPERTY_IS_(type, field, char *) ||          \
                                                      BUS_PROPERTY_IS_(type, field, const char *), \
                                              "char *"),                                        \
                        flags)
#define BUS_PROPERTY_CHARS(name, type, field, flags)                                            \
        SD_BUS_PROPERTY(name, "s", bus_property_get_chars,                                      \
                        BUS_PROPERTY_FIELD_IF(type, field,                                      \
                                              BUS_PROPERTY_IS_(type, field,                     \
                                                               char[sizeof(((type *) 0)->field)]), \
                                              "char[N]"),                                       \
                        flags)

/* The getters, sd_bus_property_get_t: userdata points at the field. */
int bus_property_get_bool(sd_bus *bus, const char *path, const char *interface, const char *property,
                          sd_bus_message *reply, void *userdata, sd_bus_error *ret_error);
int bus_property_get_u8(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *ret_error);
int bus_property_get_u32(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *ret_error);
int bus_property_get_u64(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *ret_error);
int bus_property_get_i64(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *ret_error);
int bus_property_get_i64_t(sd_bus *bus, const char *path, const char *interface, const char *property,
                           sd_bus_message *reply, void *userdata, sd_bus_error *ret_error);
int bus_property_get_string(sd_bus *bus, const char *path, const char *interface, const char *property,
                            sd_bus_message *reply, void *userdata, sd_bus_error *ret_error);
int bus_property_get_chars(sd_bus *bus, const char *path, const char *interface, const char *property,
                           sd_bus_message *reply, void *userdata, sd_bus_error *ret_error);

#endif
