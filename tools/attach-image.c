/* attach-image.c: the build's last step: OUT = the stage-0 executable, the boot image, a trailer.
 * The trailer (runtime/bootimage.c reads it) is "TCLIMAGE", the image's offset, its length. An
 * empty IMAGE (the build could not write one) gives the executable alone, which boots from source. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

static long copy(FILE *out, const char *path) {
    FILE *in = fopen(path, "rb");
    if (!in) { perror(path); exit(1); }
    char buf[1 << 16];
    size_t n;
    long total = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
        if (fwrite(buf, 1, n, out) != n) { perror("write"); exit(1); }
        total += (long)n;
    }
    fclose(in);
    return total;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: attach-image OUT EXECUTABLE IMAGE\n"); return 2; }
    FILE *out = fopen(argv[1], "wb");
    if (!out) { perror(argv[1]); return 1; }
    uint64_t offset = (uint64_t)copy(out, argv[2]);
    /* the image starts on a page, so that its parts can be mapped from the file */
    while (offset % 4096) {
        if (fputc(0, out) == EOF) { perror(argv[1]); return 1; }
        offset++;
    }
    uint64_t length = (uint64_t)copy(out, argv[3]);
    if (length == 0) return fclose(out) == 0 ? 0 : 1;   /* no image: the executable alone (padded) */
    char trailer[24];
    memcpy(trailer, "TCLIMAGE", 8);
    memcpy(trailer + 8, &offset, 8);
    memcpy(trailer + 16, &length, 8);
    if (fwrite(trailer, 1, sizeof trailer, out) != sizeof trailer || fclose(out) != 0) { perror(argv[1]); return 1; }
    return 0;
}
