/* image_unit.h: a boot image a Check test program writes for itself (test programs carry none),
 * read into memory, so that its sessions start from an image as build/tinycl's do. */
#ifndef TINYCL_IMAGE_UNIT_H
#define TINYCL_IMAGE_UNIT_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "tinycl.h"
#include "bootimage.h"
#include "image.h"

/* The graph of ROOT written with the interpreter structure as external region 0 (image_write);
 * the bytes are the caller's to free. */
static inline unsigned char *unit_write_one(Lisp *L, Obj root, size_t *len) {
    char err[IMAGE_ERRLEN] = "";
    uintptr_t roots[1] = {WORD(root)};
    ImageRegion ext[1] = {{L, sizeof *L}};
    unsigned char *img = image_write(L, roots, 1, ext, 1, len, err);
    ck_assert_msg(img != NULL, "image_write: %s", err);
    return img;
}

/* The whole of file PATH, in memory the caller frees; its length in *LEN. */
static inline unsigned char *unit_slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc(*len);
    ck_assert_uint_eq(fread(bytes, 1, *len, f), *len);
    fclose(f);
    return bytes;
}

/* Write a boot image to a temporary file and read it back: the bytes are the caller's to free. */
static inline unsigned char *unit_read_boot_image(size_t *len) {
    char path[] = "/tmp/tinycl-unit-image-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(tcl_write_boot_image(path), 0);
    unsigned char *bytes = unit_slurp(path, len);
    unlink(path);
    return bytes;
}

/* The program's image, written once: sessions made after unit_use_boot_image start from a copy of it. */
static unsigned char *unit_image;
static size_t unit_image_len;

static inline void unit_use_boot_image(void) {
    if (unit_image) return;
    unit_image = unit_read_boot_image(&unit_image_len);
    bootimage_use(unit_image, unit_image_len);
    setenv("TINYCL_BOOT", "image", 1);     /* a refused image fails tcl_session_new */
}

/* A session started from the program's image, its output captured. */
static inline TclSession *unit_image_session(void) {
    unit_use_boot_image();
    TclOptions o = {0};
    o.capture_output = true;
    TclSession *s = tcl_session_new(&o);
    ck_assert_msg(s != NULL, "tcl_session_new from the image failed");
    return s;
}

#endif
