/* fileload.c: load-file behind the session API (stdlib-lisp/filetools.lisp loads form by form and
 * leaves its report in SYS::*FILES-REPORT*; this turns it into a TclFileLoad), and the reader check
 * of edit-lisp-form's content. */
#include "tinycl.h"
#include "session.h"
#include "files.h"
#include "lispreport.h"
#include "lispsrc.h"
#include "../runtime/state.h"
#include "../runtime/package.h"
#include "../runtime/lstring.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *join_conditions(char *a, const char *b) {
    if (!b || !*b) return a;
    char *both = (char *)malloc(strlen(a) + strlen(b) + 2);
    sprintf(both, "%s%s%s", a, *a ? " " : "", b);
    free(a);
    return both;
}

static void form_free(LsrcForm *x) {
    free(x->kind); free(x->name); free(x->qualifiers); free(x->specializers); free(x->condition); free(x->package);
}

/* One form's reader conditionals, each as written and whether it is true under *features*. */
typedef struct CondChain { int n; char **text; bool *kept; } CondChain;

/* Read one object as the reader does, from conditional CI of form *FI (CI == n: its datum),
 * advancing past it: a true conditional reads the object after it (its text joins *GOVERNING);
 * a false one reads one object suppressed, its feature still decided (as SBCL does), then the
 * object after that. The form whose datum is the object; -1 at the end of the text. */
static int read_object(const CondChain *ch, int count, int *fi, int *ci, char **governing) {
    for (;;) {
        if (*fi >= count) return -1;
        const CondChain *c = &ch[*fi];
        if (*ci >= c->n) { int d = (*fi)++; *ci = 0; return d; }
        int k = (*ci)++;
        if (c->kept[k]) {
            if (governing) *governing = join_conditions(*governing, c->text[k]);
            continue;
        }
        if (read_object(ch, count, fi, ci, NULL) < 0) return -1;
    }
}

/* The top-level forms of LF as the reader reads them under CH: in "#+(and) #+(or) (c) (d)" the
 * false #+(or) skips (c) and the true #+(and) governs the next object, (d), so the text is the one
 * form (d), merged here (extent, and #+(and) as its condition). A skipped object is listed form by
 * form, each marked skipped: in "#-(and) #+(or) (f) (g)" both (f) and (g) are skipped. Returns how
 * many data were skipped, merged ones included. */
static int merge_as_read(LsrcFile *lf, const CondChain *ch) {
    int out = 0, skipped = 0, fi = 0, ci = 0;
    while (fi < lf->count) {
        int f0 = fi;
        if (ch[f0].n > 0 && !ch[f0].kept[0]) {
            ci = 1;
            int d = read_object(ch, lf->count, &fi, &ci, NULL);
            if (d < 0) { fi = lf->count; d = lf->count - 1; }
            for (int j = f0; j <= d; j++) { lf->forms[j].skipped = true; lf->forms[out++] = lf->forms[j]; skipped++; }
            continue;
        }
        char *governing = report_strdup("");
        int d = read_object(ch, lf->count, &fi, &ci, &governing);
        if (d < 0) {
            /* the text ends before the object those conditionals govern: the reader's end of file */
            free(governing);
            for (int j = f0; j < lf->count; j++) { lf->forms[j].skipped = true; lf->forms[out++] = lf->forms[j]; skipped++; }
            break;
        }
        LsrcForm merged = lf->forms[d];
        merged.start = lf->forms[f0].start;
        merged.gap_start = lf->forms[f0].gap_start;
        free(merged.condition);
        merged.condition = *governing ? governing : (free(governing), NULL);
        merged.skipped = false;
        for (int j = f0; j < d; j++) form_free(&lf->forms[j]);
        skipped += d - f0;
        lf->forms[out++] = merged;
    }
    lf->count = out;
    return skipped;
}

int files_mark_skipped(TclSession *s, LsrcFile *lf) {
    size_t cap = 64, len = 0;
    char *code = (char *)malloc(cap);
    len = (size_t)snprintf(code, cap, "(sys::%%conditions-skipped '(");
    int any = 0;
    for (int i = 0; i < lf->count; i++) {
        if (!lf->forms[i].condition) continue;
        char *lit = files_lisp_string(lf->forms[i].condition);
        size_t l = strlen(lit);
        if (len + l + 8 > cap) { cap = (len + l + 8) * 2; code = (char *)realloc(code, cap); }
        memcpy(code + len, lit, l);
        len += l;
        code[len++] = ' ';
        free(lit);
        any++;
    }
    if (!any) { free(code); return 0; }
    memcpy(code + len, "))", 3);
    Lisp *L = s->L;
    Obj var = intern_cstr(L, L->pkg_system, "*FILES-REPORT*");
    SYM(var)->value = NIL;
    tcl_result_free(tcl_eval(s, code, NULL, 10));
    free(code);
    L = s->L;
    Obj rep = SYM(var)->value;
    SYM(var)->value = NIL;
    /* per form with conditionals: ((text . kept) ...), one per conditional */
    CondChain *ch = (CondChain *)calloc((size_t)lf->count, sizeof *ch);
    for (int i = 0; i < lf->count && is_cons(rep); i++) {
        if (!lf->forms[i].condition) continue;
        int n = 0;
        for (Obj x = CAR(rep); is_cons(x); x = CDR(x)) n++;
        ch[i].text = (char **)calloc((size_t)n + 1, sizeof(char *));
        ch[i].kept = (bool *)calloc((size_t)n + 1, sizeof(bool));
        for (Obj x = CAR(rep); is_cons(x); x = CDR(x), ch[i].n++) {
            ch[i].text[ch[i].n] = report_cstr(CAR(CAR(x)));
            ch[i].kept[ch[i].n] = CDR(CAR(x)) != NIL;
        }
        rep = CDR(rep);
    }
    int n0 = lf->count;
    int skipped = merge_as_read(lf, ch);
    for (int i = 0; i < n0; i++) {
        for (int k = 0; k < ch[i].n; k++) free(ch[i].text[k]);
        free(ch[i].text);
        free(ch[i].kept);
    }
    free(ch);
    return skipped;
}

TclFileLoad *tcl_load_source_file(TclSession *s, const char *path, const char *package, double timeout) {
    TclFileLoad *l = (TclFileLoad *)calloc(1, sizeof *l);
    l->path = report_strdup(path);
    char *lp = files_lisp_string(path);
    char *lk = package ? files_lisp_string(package) : report_strdup("nil");
    size_t n = strlen(lp) + strlen(lk) + 64;
    char *code = (char *)malloc(n);
    snprintf(code, n, "(sys::%%load-file-report %s %s)", lp, lk);
    free(lp);
    free(lk);
    Lisp *L = s->L;
    Obj var = intern_cstr(L, L->pkg_system, "*FILES-REPORT*");
    SYM(var)->value = NIL;
    l->result = tcl_eval(s, code, NULL, timeout);
    free(code);
    L = s->L;
    Obj rep = SYM(var)->value;
    SYM(var)->value = NIL;
    char *text = NULL;
    size_t tlen = 0;
    if (is_cons(rep)) {
        char *file = report_cstr(report_nth(rep, 3));
        if (file) { free(l->path); l->path = file; }
        l->forms = report_int(report_nth(rep, 0));
        Obj notes = report_nth(rep, 1), defs = report_nth(rep, 2);
        l->nnotes = report_len(notes);
        l->notes = (TclFileNote *)calloc((size_t)l->nnotes + 1, sizeof(TclFileNote));
        int i = 0;
        for (Obj p = notes; is_cons(p); p = CDR(p), i++) {
            Obj e = CAR(p);
            TclFileNote *nt = &l->notes[i];
            nt->line = report_int(report_nth(e, 0));
            nt->severity = report_cstr(report_nth(e, 1));
            nt->type = report_cstr(report_nth(e, 2));
            nt->message = report_cstr(report_nth(e, 3));
            nt->form = report_cstr(report_nth(e, 4));
            if (nt->severity && strcmp(nt->severity, "error") == 0) l->errors++;
            else l->warnings++;
        }
        l->ndefinitions = report_len(defs);
        l->definitions = (TclFileDefinition *)calloc((size_t)l->ndefinitions + 1, sizeof(TclFileDefinition));
        i = 0;
        for (Obj p = defs; is_cons(p); p = CDR(p), i++) {
            Obj e = CAR(p);
            TclFileDefinition *d = &l->definitions[i];
            d->kind = report_cstr(report_nth(e, 0));
            d->name = report_cstr(report_nth(e, 1));
            d->package = report_cstr(report_nth(e, 2));
            d->line = report_int(report_nth(e, 3));
            d->column = report_int(report_nth(e, 4));
        }
        report_text_add(&text, &tlen, "Loaded %s: %d form%s, %d error%s, %d warning%s\n", l->path, l->forms,
                 l->forms == 1 ? "" : "s", l->errors, l->errors == 1 ? "" : "s", l->warnings, l->warnings == 1 ? "" : "s");
        for (i = 0; i < l->nnotes; i++) {
            TclFileNote *nt = &l->notes[i];
            report_text_add(&text, &tlen, "[%s] line %d: %s: %s\n    in: %s\n", nt->severity, nt->line, nt->type, nt->message,
                     nt->form ? nt->form : "");
        }
        if (l->ndefinitions) {
            report_text_add(&text, &tlen, "Definitions:\n");
            for (i = 0; i < l->ndefinitions; i++) {
                TclFileDefinition *d = &l->definitions[i];
                report_text_add(&text, &tlen, "  %s %s  (%s:%d:%d)\n", d->kind, d->name, l->path, d->line, d->column);
            }
        }
        if (tlen && text[tlen - 1] == '\n') text[--tlen] = 0;
    }
    l->text = text ? text : report_strdup("");
    return l;
}

char *files_content_unreadable(TclSession *s, const char *content) {
    char *lit = files_lisp_string(content);
    size_t n = strlen(lit) + 40;
    char *code = (char *)malloc(n);
    snprintf(code, n, "(sys::%%check-readable %s)", lit);
    free(lit);
    Lisp *L = s->L;
    Obj var = intern_cstr(L, L->pkg_system, "*FILES-REPORT*");
    SYM(var)->value = NIL;
    TclResult *r = tcl_eval(s, code, "CL-USER", 10);
    free(code);
    L = s->L;
    char *msg = NULL;
    if (r->status != TCL_OK) {
        size_t m = (r->error_type ? strlen(r->error_type) : 5) + (r->error_message ? strlen(r->error_message) : 0) + 4;
        msg = (char *)malloc(m);
        snprintf(msg, m, "%s: %s", r->error_type ? r->error_type : "ERROR", r->error_message ? r->error_message : "");
    } else {
        msg = report_cstr(SYM(var)->value);
    }
    SYM(var)->value = NIL;
    tcl_result_free(r);
    return msg;
}

void tcl_file_load_free(TclFileLoad *l) {
    if (!l) return;
    tcl_result_free(l->result);
    free(l->path);
    free(l->text);
    for (int i = 0; i < l->nnotes; i++) {
        free(l->notes[i].severity); free(l->notes[i].type); free(l->notes[i].message); free(l->notes[i].form);
    }
    free(l->notes);
    for (int i = 0; i < l->ndefinitions; i++) {
        free(l->definitions[i].kind); free(l->definitions[i].name); free(l->definitions[i].package);
    }
    free(l->definitions);
    free(l);
}
