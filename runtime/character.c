/* character.c: characters: names, case, classification, and the CLHS chapter 13 functions. */
#include "character.h"
#include "prim.h"
#include <wctype.h>
#include <locale.h>
#include <pthread.h>

static locale_t utf8_locale;
static pthread_once_t locale_once = PTHREAD_ONCE_INIT;
static void locale_init(void) {
    utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}
static locale_t loc(void) {
    pthread_once(&locale_once, locale_init);
    return utf8_locale;
}

/* SBCL's names for the control characters, then the semi-standard names. */
static const char *const control_names[32] = {
    "Nul", "Soh", "Stx", "Etx", "Eot", "Enq", "Ack", "Bel", "Backspace", "Tab", "Newline", "Vt",
    "Page", "Return", "So", "Si", "Dle", "Dc1", "Dc2", "Dc3", "Dc4", "Nak", "Syn", "Etb",
    "Can", "Em", "Sub", "Esc", "Fs", "Gs", "Rs", "Us",
};

static const struct { const char *name; uint32_t code; } extra_names[] = {
    {"Space", 32}, {"Rubout", 127}, {"Linefeed", 10}, {"Null", 0}, {"Bell", 7}, {"Escape", 27},
    {"Delete", 127}, {"Del", 127}, {"Nl", 10}, {"Lf", 10}, {"Cr", 13}, {"Ff", 12}, {"Bs", 8},
    {"Ht", 9}, {"No-break_space", 160}, {"Nbsp", 160},
};

const char *char_name_of(uint32_t c) {
    if (c < 32) return control_names[c];
    if (c == 32) return "Space";
    if (c == 127) return "Rubout";
    if (c == 160) return "No-break_space";
    return NULL;
}

static uint32_t ascii_lower(uint32_t c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static bool name_eq(const uint32_t *name, size_t n, const char *s) {
    size_t k = strlen(s);
    if (k != n) return false;
    for (size_t i = 0; i < n; i++)
        if (ascii_lower(name[i]) != ascii_lower((unsigned char)s[i])) return false;
    return true;
}

int32_t char_from_name(const uint32_t *name, size_t n) {
    if (n == 1) return (int32_t)name[0];
    for (int i = 0; i < 32; i++)
        if (name_eq(name, n, control_names[i])) return i;
    for (size_t i = 0; i < sizeof extra_names / sizeof *extra_names; i++)
        if (name_eq(name, n, extra_names[i].name)) return (int32_t)extra_names[i].code;
    /* U+XXXX, UXXXX */
    if (n >= 2 && (name[0] == 'U' || name[0] == 'u')) {
        size_t i = 1;
        if (name[1] == '+') i = 2;
        if (i >= n) return -1;
        uint32_t v = 0;
        for (; i < n; i++) {
            uint32_t d = name[i];
            int dv = d >= '0' && d <= '9' ? (int)(d - '0') : d >= 'a' && d <= 'f' ? (int)(d - 'a' + 10)
                   : d >= 'A' && d <= 'F' ? (int)(d - 'A' + 10) : -1;
            if (dv < 0) return -1;
            v = v * 16 + (uint32_t)dv;
            if (v >= CHAR_CODE_LIMIT) return -1;
        }
        return (int32_t)v;
    }
    return -1;
}

bool char_is_graphic(uint32_t c) {
    if (c < 128) return c >= 32 && c < 127;
    if (c < 160) return false;
    if (c >= 0xD800 && c < 0xE000) return false;
    return iswprint_l((wint_t)c, loc()) != 0;
}

bool char_is_alpha(uint32_t c) {
    if (c < 128) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    return iswalpha_l((wint_t)c, loc()) != 0;
}

uint32_t char_upcase(uint32_t c) {
    if (c < 128) return c >= 'a' && c <= 'z' ? c - 32 : c;
    uint32_t u = (uint32_t)towupper_l((wint_t)c, loc());
    /* only characters with a one-to-one case mapping have case in CL */
    return (uint32_t)towlower_l((wint_t)u, loc()) == c ? u : c;
}

uint32_t char_downcase(uint32_t c) {
    if (c < 128) return c >= 'A' && c <= 'Z' ? c + 32 : c;
    uint32_t d = (uint32_t)towlower_l((wint_t)c, loc());
    return (uint32_t)towupper_l((wint_t)d, loc()) == c ? d : c;
}

bool char_is_upper(uint32_t c) { return char_downcase(c) != c; }
bool char_is_lower(uint32_t c) { return char_upcase(c) != c; }

bool char_is_whitespace(uint32_t c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 11;
}

static const PrimDef character_prims[] = {
    {0},
};

void character_init(Lisp *L) { prims_register(L, character_prims); }
