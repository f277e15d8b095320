/* session-image.c: the embedding API's side of the boot image (runtime/bootimage.c). */
#include "tinycl.h"
#include "bootimage.h"
#include "image.h"
#include "gc.h"
#include <stdio.h>

void tcl_boot_from_source(bool on) { bootimage_set_source_boot(on); }

int tcl_write_boot_image(const char *path) {
    bootimage_set_source_boot(true);
    Lisp *L = lisp_new(NULL);
    if (!L) return -1;
    char err[IMAGE_ERRLEN];
    gc_current = L;
    if (bootimage_write(L, path, err) != 0) {
        fprintf(stderr, "tinycl: cannot write the boot image: %s\n", err);
        return -1;
    }
    return 0;
}
