// Byte searches shared by the trace splitter and the event scanner (SSE2, with a plain fallback).
#pragma once

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace plumb::trace {

// First '"' or '\\' in [p, end), or end.
inline const char* find_quote_or_backslash(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i q = _mm_set1_epi8('"');
  const __m128i b = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, b)));
    if (m != 0) return p + __builtin_ctz(static_cast<unsigned>(m));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '\\') ++p;
  return p;
}

// First '"', '\\' or control character (below 0x20, which JSON wants escaped) in [p, end), or end.
inline const char* find_string_special(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i q = _mm_set1_epi8('"');
  const __m128i b = _mm_set1_epi8('\\');
  const __m128i ctl = _mm_set1_epi8(0x1f);
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, b)),
                               _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));  // v <= 0x1f
    int m = _mm_movemask_epi8(hit);
    if (m != 0) return p + __builtin_ctz(static_cast<unsigned>(m));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) ++p;
  return p;
}

// First '"', '{', '}', '[' or ']' in [p, end), or end: skips numbers, colons, commas and white
// space in bulk.
inline const char* find_structural(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i q = _mm_set1_epi8('"');
  const __m128i lo = _mm_set1_epi8(0x20);
  const __m128i open = _mm_set1_epi8('{');    // '[' | 0x20 == '{'
  const __m128i close = _mm_set1_epi8('}');   // ']' | 0x20 == '}'
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i f = _mm_or_si128(v, lo);
    __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_or_si128(_mm_cmpeq_epi8(f, open), _mm_cmpeq_epi8(f, close)));
    int m = _mm_movemask_epi8(hit);
    if (m != 0) return p + __builtin_ctz(static_cast<unsigned>(m));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '{' && *p != '}' && *p != '[' && *p != ']') ++p;
  return p;
}

}  // namespace plumb::trace
