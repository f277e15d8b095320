/* embed.c: build tool: turns the stdlib-lisp sources named in MANIFEST into a C array, and moves
 * the docstrings of their COMMON-LISP functions, macros and generic functions into a C table.
 *
 * A docstring read at boot costs allocation (and, for the stdlib's few hundred, an extra garbage
 * collection), yet it is almost never asked for. So for each (DEFUN name lambda-list "doc" body...),
 * (DEFMACRO ...) or (DEFGENERIC name lambda-list ... (:documentation "doc") ...) whose name is an
 * external symbol of COMMON-LISP (listed in cl-symbols.def),
 * the docstring stays in the source, where it belongs, but is left out of the embedded text (its
 * newlines kept, so every later line keeps its number) and goes to stdlib_docs[], which
 * CL:DOCUMENTATION consults (runtime/docs.c). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static char **cl_names;
static size_t cl_count;

/* The names of cl-symbols.def: one "NAME", per line. */
static void load_cl_names(const char *path) {
    FILE *in = fopen(path, "r");
    if (!in) { perror(path); exit(1); }
    char line[256];
    while (fgets(line, sizeof line, in)) {
        char *q = strchr(line, '"');
        char *e = q ? strrchr(line, '"') : NULL;
        if (!q || e == q) continue;
        cl_names = realloc(cl_names, (cl_count + 1) * sizeof *cl_names);
        cl_names[cl_count++] = strndup(q + 1, (size_t)(e - q - 1));
    }
    fclose(in);
}

static int is_cl_name(const char *name) {
    for (size_t i = 0; i < cl_count; i++)
        if (strcmp(cl_names[i], name) == 0) return 1;
    return 0;
}

static char *read_file(const char *path, size_t *len) {
    FILE *in = fopen(path, "rb");
    if (!in) { perror(path); exit(1); }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    int c;
    while ((c = fgetc(in)) != EOF) {
        if (n + 1 >= cap) buf = realloc(buf, cap *= 2);
        buf[n++] = (char)c;
    }
    buf[n] = 0;
    fclose(in);
    *len = n;
    return buf;
}

/* Index after the string literal starting at s[i] == '"'. */
static size_t skip_string(const char *s, size_t n, size_t i) {
    for (i++; i < n && s[i] != '"'; i++)
        if (s[i] == '\\') i++;
    return i < n ? i + 1 : n;
}

/* Index after whitespace and comments from i. */
static size_t skip_blank(const char *s, size_t n, size_t i) {
    for (;;) {
        while (i < n && isspace((unsigned char)s[i])) i++;
        if (i < n && s[i] == ';') {
            while (i < n && s[i] != '\n') i++;
        } else if (i + 1 < n && s[i] == '#' && s[i + 1] == '|') {
            const char *e = strstr(s + i + 2, "|#");
            i = e ? (size_t)(e - s) + 2 : n;
        } else {
            return i;
        }
    }
}

/* Index after the form starting at s[i] (a list, a string or an atom). */
static size_t skip_form(const char *s, size_t n, size_t i) {
    int depth = 0;
    while (i < n) {
        i = skip_blank(s, n, i);
        if (i >= n) return n;
        char c = s[i];
        if (c == '"') {
            i = skip_string(s, n, i);
        } else if (c == '#' && i + 1 < n && s[i + 1] == '\\') {
            i += 3;
            while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '-')) i++;
        } else if (c == '(') {
            depth++;
            i++;
            continue;
        } else if (c == ')') {
            depth--;
            i++;
        } else if (c == '\'' || c == '`' || c == ',') {
            i++;
            continue;
        } else {
            while (i < n && !isspace((unsigned char)s[i]) && s[i] != '(' && s[i] != ')') i++;
        }
        if (depth <= 0) return i;
    }
    return n;
}

/* Print the Lisp string literal s[a..b) (quotes included) as a C string literal. */
static void put_c_string(FILE *out, const char *s, size_t a, size_t b) {
    fputc('"', out);
    for (size_t i = a + 1; i + 1 < b; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\') c = (unsigned char)s[++i];
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c == '\n') fputs("\\n", out);
        else if (c < 32 || c >= 127) fprintf(out, "\\%03o", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

/* Move the docstrings of CL definitions out of text (see the top of the file), writing table rows. */
static void strip_docstrings(char *s, size_t *textlen, FILE *rows) {
    size_t i = 0;
    while (i < *textlen) {
        size_t n = *textlen;
        char c = s[i];
        if (c == '"') { i = skip_string(s, n, i); continue; }
        if (c == ';' || (c == '#' && i + 1 < n && s[i + 1] == '|')) { i = skip_blank(s, n, i); continue; }
        if (c == '#' && i + 1 < n && s[i + 1] == '\\') { i += 3; continue; }
        if (c != '(') { i++; continue; }
        size_t head = i + 1, len = 0;
        int generic = 0;
        if (strncasecmp(s + head, "defun", 5) == 0 && isspace((unsigned char)s[head + 5])) len = 5;
        else if (strncasecmp(s + head, "defmacro", 8) == 0 && isspace((unsigned char)s[head + 8])) len = 8;
        else if (strncasecmp(s + head, "defgeneric", 10) == 0 && isspace((unsigned char)s[head + 10])) len = 10, generic = 1;
        i++;
        if (!len) continue;
        size_t name = skip_blank(s, n, head + len), name_end = name;
        while (name_end < n && !isspace((unsigned char)s[name_end]) && s[name_end] != '(' && s[name_end] != ')')
            name_end++;
        char sym[128];
        if (name_end == name || name_end - name >= sizeof sym) continue;
        for (size_t k = name; k < name_end; k++) sym[k - name] = (char)toupper((unsigned char)s[k]);
        sym[name_end - name] = 0;
        if (strchr(sym, ':') || strchr(sym, ',') || strchr(sym, '|') || !is_cl_name(sym)) continue;
        size_t doc = skip_blank(s, n, skip_form(s, n, name_end)), cut = doc, cut_end;
        if (generic) {
            /* the option (:documentation "doc") among the options after the lambda list */
            while (doc < n && s[doc] == '(' && strncasecmp(s + doc + 1, ":documentation", 14) != 0)
                doc = skip_blank(s, n, skip_form(s, n, doc));
            if (doc >= n || s[doc] != '(') continue;
            cut = doc;
            cut_end = skip_form(s, n, cut);
            doc = skip_blank(s, n, doc + 15);
            if (doc >= n || s[doc] != '"' || skip_blank(s, n, skip_string(s, n, doc)) + 1 != cut_end) continue;
        }
        if (doc >= n || s[doc] != '"') continue;
        size_t doc_end = skip_string(s, n, doc);
        if (!generic) {
            size_t next = skip_blank(s, n, doc_end);
            if (next >= n || s[next] == ')') continue;   /* the string is the body, not documentation */
            cut_end = doc_end;
        }
        fprintf(rows, "    {\"%s\", ", sym);
        put_c_string(rows, s, doc, doc_end);
        fputs("},\n", rows);
        /* drop the string (or the option) from the text, keeping its newlines so that later lines
         * keep their numbers */
        size_t kept = cut;
        for (size_t k = cut; k < cut_end; k++)
            if (s[k] == '\n') s[kept++] = '\n';
        memmove(s + kept, s + cut_end, *textlen - cut_end + 1);
        *textlen -= cut_end - kept;
        i = kept;
    }
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: embed OUT.c CL-SYMBOLS.DEF FILE...\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (!out) { perror(argv[1]); return 1; }
    load_cl_names(argv[2]);
    FILE *rows = tmpfile();
    if (!rows) { perror("tmpfile"); return 1; }
    fputs("/* generated by tools/embed from stdlib-lisp; do not edit */\n#include <stddef.h>\n", out);
    fputs("typedef struct StdlibFile { const char *name; const char *text; size_t len; } StdlibFile;\n", out);
    fputs("typedef struct DocRow { const char *name; const char *doc; } DocRow;\n", out);
    for (int i = 3; i < argc; i++) {
        size_t n;
        char *text = read_file(argv[i], &n);
        fprintf(rows, "    /* %s */\n", argv[i]);
        strip_docstrings(text, &n, rows);
        fprintf(out, "static const char file_%d[] = {", i);
        for (size_t k = 0; k < n; k++) {
            if (k % 20 == 0) fputs("\n", out);
            fprintf(out, "%d,", (unsigned char)text[k]);
        }
        fputs("0};\n", out);
        free(text);
    }
    fputs("const StdlibFile stdlib_files[] = {\n", out);
    for (int i = 3; i < argc; i++) fprintf(out, "    {\"%s\", file_%d, sizeof file_%d - 1},\n", argv[i], i, i);
    fputs("};\n", out);
    fprintf(out, "const int stdlib_count = %d;\n", argc - 3);
    fputs("/* the docstrings of the COMMON-LISP functions and macros defined in the stdlib */\n", out);
    fputs("const DocRow stdlib_docs[] = {\n", out);
    rewind(rows);
    int c;
    while ((c = fgetc(rows)) != EOF) fputc(c, out);
    fputs("    {0},\n};\n", out);
    fclose(rows);
    fclose(out);
    return 0;
}
