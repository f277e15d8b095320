/* character.h: character names and classification shared by the reader, printer and string functions. */
#ifndef TINYCL_CHARACTER_H
#define TINYCL_CHARACTER_H

#include "state.h"

/* The name CHAR-NAME gives C (e.g. "Space", "Newline"), or NULL. */
const char *char_name_of(uint32_t c);
/* The code NAME-CHAR finds for NAME (case-insensitive), or -1. */
int32_t char_from_name(const uint32_t *name, size_t n);
bool char_is_graphic(uint32_t c);
bool char_is_alpha(uint32_t c);
bool char_is_upper(uint32_t c);
bool char_is_lower(uint32_t c);
uint32_t char_upcase(uint32_t c);
uint32_t char_downcase(uint32_t c);
bool char_is_whitespace(uint32_t c);   /* reader whitespace in the standard syntax */

#endif
