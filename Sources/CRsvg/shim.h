/*
 * The part of librsvg's C API (2.52 and later) that WebImageSVG calls, declared here instead of including
 * <librsvg/rsvg.h>. That header pulls in GLib, GIO and gdk-pixbuf, whose headers live in folders only pkg-config
 * knows (/usr/include/glib-2.0, the multiarch glib-2.0/include, ...), and librsvg's pkg-config flags carry
 * `-pthread`, which SwiftPM refuses and reports as "prohibited flag(s)" in every package that depends on this
 * one. The declarations below match librsvg's and GLib's published ABI, which has not changed since these
 * functions appeared: a handle is an opaque GObject, GError is {GQuark, gint, gchar *}, RsvgLength is
 * {double, RsvgUnit}, RsvgRectangle four doubles, gboolean an int, gsize an unsigned long.
 */
#ifndef WEBIMAGE_CRSVG_SHIM_H
#define WEBIMAGE_CRSVG_SHIM_H

#include <stdint.h>

typedef struct _RsvgHandle RsvgHandle;
struct _cairo;

typedef struct _GError {
    uint32_t domain;
    int code;
    char *message;
} GError;

typedef enum {
    RSVG_UNIT_PERCENT,
    RSVG_UNIT_PX,
    RSVG_UNIT_EM,
    RSVG_UNIT_EX,
    RSVG_UNIT_IN,
    RSVG_UNIT_CM,
    RSVG_UNIT_MM,
    RSVG_UNIT_PT,
    RSVG_UNIT_PC
} RsvgUnit;

typedef struct {
    double length;
    RsvgUnit unit;
} RsvgLength;

typedef struct {
    double x;
    double y;
    double width;
    double height;
} RsvgRectangle;

RsvgHandle *rsvg_handle_new_from_data(const uint8_t *data, unsigned long data_len, GError **error);
void rsvg_handle_set_dpi(RsvgHandle *handle, double dpi);
int rsvg_handle_get_intrinsic_size_in_pixels(RsvgHandle *handle, double *out_width, double *out_height);
void rsvg_handle_get_intrinsic_dimensions(RsvgHandle *handle, int *out_has_width, RsvgLength *out_width,
                                          int *out_has_height, RsvgLength *out_height, int *out_has_viewbox,
                                          RsvgRectangle *out_viewbox);
int rsvg_handle_render_document(RsvgHandle *handle, struct _cairo *cr, const RsvgRectangle *viewport,
                                GError **error);

/* GObject's unref, declared for the one kind of object released here. */
void g_object_unref(RsvgHandle *object);
void g_error_free(GError *error);

#endif
