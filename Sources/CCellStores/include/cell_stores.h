#ifndef REEL_CELL_STORES_H
#define REEL_CELL_STORES_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// Writes eight screen cells made from eight ASCII bytes: cell k is the pair (`source[k]`,
/// `style`) as two 32-bit words, content first, at byte 8k of `cells`. That is the emulator's
/// `Cell` (content then style, 8 bytes, no padding; CellLayoutTests pins it). The caller
/// guarantees eight readable bytes at `source` and 64 writable bytes at `cells`; neither needs
/// any alignment. Stores go through memcpy or unaligned vector stores, which may alias
/// anything, so the cells' Swift type is not punned.
///
/// This is the print path's widest store: Swift's SIMD conversions are generic calls, not the
/// unpack instructions, and one 8-byte store per cell was a fifth of plain text's time. With
/// SSE2 (every x86-64) it is one load, four unpacks and four 16-byte stores; elsewhere the
/// portable loop below, which the tests compare it with.
static inline void reel_store_ascii_cells8_portable(const uint8_t *source, void *cells, uint32_t style) {
  unsigned char *out = (unsigned char *)cells;
  for (int k = 0; k < 8; k++) {
    const uint32_t pair[2] = {source[k], style};
    memcpy(out + 8 * k, pair, sizeof pair);
  }
}

static inline void reel_store_ascii_cells8(const uint8_t *source, void *cells, uint32_t style) {
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  const __m128i pen = _mm_set1_epi32((int)style);
  const __m128i bytes = _mm_loadl_epi64((const __m128i *)(const void *)source);
  const __m128i halves = _mm_unpacklo_epi8(bytes, zero);
  const __m128i low = _mm_unpacklo_epi16(halves, zero);
  const __m128i high = _mm_unpackhi_epi16(halves, zero);
  unsigned char *out = (unsigned char *)cells;
  _mm_storeu_si128((__m128i *)(void *)out, _mm_unpacklo_epi32(low, pen));
  _mm_storeu_si128((__m128i *)(void *)(out + 16), _mm_unpackhi_epi32(low, pen));
  _mm_storeu_si128((__m128i *)(void *)(out + 32), _mm_unpacklo_epi32(high, pen));
  _mm_storeu_si128((__m128i *)(void *)(out + 48), _mm_unpackhi_epi32(high, pen));
#else
  reel_store_ascii_cells8_portable(source, cells, style);
#endif
}

#endif
