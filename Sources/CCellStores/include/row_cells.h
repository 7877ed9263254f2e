#ifndef REEL_ROW_CELLS_H
#define REEL_ROW_CELLS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// Scans and clears of a row of screen cells: `count` cells of 8 bytes each (content then
// style, two 32-bit words, no padding; CellLayoutTests pins it), a blank cell being eight
// zero bytes. Cells are read and written through memcpy or unaligned vector loads and stores,
// which may alias anything, so the cells' Swift type is not punned; no alignment is needed.
//
// Why C: once the scrollback is full, every line of output recycles the ring's oldest line
// (cleared) and, in a grid that compacts its history, moves a row to `CompactHistory` (its
// blank tail cut, plain ASCII packed a byte a cell). Swift's per-cell loops there (generic
// `==`, one byte stored at a time) cost more than printing the line; these are the same loops
// a vector at a time.

/// The number of cells left when the row's trailing blank cells (eight zero bytes) are cut.
/// The portable version, which the tests compare the vector one with.
static inline size_t reel_row_length_without_trailing_blanks_portable(const void *cells, size_t count) {
  const unsigned char *bytes = (const unsigned char *)cells;
  while (count > 0) {
    uint64_t word;
    memcpy(&word, bytes + 8 * (count - 1), sizeof word);
    if (word != 0) break;
    count -= 1;
  }
  return count;
}

/// `reel_row_length_without_trailing_blanks_portable`, sixteen cells a step with SSE2 while
/// they are all blank (a short line in a wide row is mostly blanks).
static inline size_t reel_row_length_without_trailing_blanks(const void *cells, size_t count) {
#if defined(__SSE2__)
  const unsigned char *bytes = (const unsigned char *)cells;
  while (count >= 16) {
    const __m128i *p = (const __m128i *)(const void *)(bytes + 8 * (count - 16));
    const __m128i any = _mm_or_si128(
        _mm_or_si128(_mm_or_si128(_mm_loadu_si128(p), _mm_loadu_si128(p + 1)),
                     _mm_or_si128(_mm_loadu_si128(p + 2), _mm_loadu_si128(p + 3))),
        _mm_or_si128(_mm_or_si128(_mm_loadu_si128(p + 4), _mm_loadu_si128(p + 5)),
                     _mm_or_si128(_mm_loadu_si128(p + 6), _mm_loadu_si128(p + 7))));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(any, _mm_setzero_si128())) != 0xFFFF) break;
    count -= 16;
  }
  return reel_row_length_without_trailing_blanks_portable(cells, count);
#else
  return reel_row_length_without_trailing_blanks_portable(cells, count);
#endif
}

/// Whether one cell is an ASCII byte in style 0: content below 0x80, style zero.
static inline int reel_cell_is_plain_ascii(uint64_t word) { return (word & ~(uint64_t)0x7F) == 0; }

/// Writes the content byte of each of `count` cells to `out` (`count` bytes, any alignment)
/// when every cell is an ASCII byte in style 0, and returns 1; otherwise returns 0, having
/// written some of `out`'s first `count` bytes. `out` is written as bytes, which may
/// alias anything, and must not overlap `cells`. The portable version, which the tests compare the vector
/// one with.
static inline int reel_pack_plain_ascii_cells_portable(const void *cells, size_t count, void *out) {
  const unsigned char *bytes = (const unsigned char *)cells;
  unsigned char *packed = (unsigned char *)out;
  for (size_t k = 0; k < count; k++) {
    uint64_t word;
    memcpy(&word, bytes + 8 * k, sizeof word);
    if (!reel_cell_is_plain_ascii(word)) return 0;
    packed[k] = (unsigned char)word;
  }
  return 1;
}

/// Packs the 16 cells at `cells` to 16 bytes at `out` when all are ASCII bytes in style 0
/// (returns 1), else returns 0 having written nothing: eight loads, a check of their OR, and
/// three rounds of packs (32 → 16 → 8 bits, then pairs of bytes to bytes), which keep exactly
/// the content bytes once the check has passed.
#if defined(__SSE2__)
static inline int reel_pack_16_plain_ascii_cells(const unsigned char *cells, unsigned char *out) {
  const __m128i notASCII = _mm_set_epi32(-1, (int)0xFFFFFF80u, -1, (int)0xFFFFFF80u);
  const __m128i *p = (const __m128i *)(const void *)cells;
  const __m128i a0 = _mm_loadu_si128(p), a1 = _mm_loadu_si128(p + 1);
  const __m128i a2 = _mm_loadu_si128(p + 2), a3 = _mm_loadu_si128(p + 3);
  const __m128i a4 = _mm_loadu_si128(p + 4), a5 = _mm_loadu_si128(p + 5);
  const __m128i a6 = _mm_loadu_si128(p + 6), a7 = _mm_loadu_si128(p + 7);
  const __m128i any = _mm_or_si128(_mm_or_si128(_mm_or_si128(a0, a1), _mm_or_si128(a2, a3)),
                                   _mm_or_si128(_mm_or_si128(a4, a5), _mm_or_si128(a6, a7)));
  if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(any, notASCII), _mm_setzero_si128())) != 0xFFFF)
    return 0;
  // Each 32-bit lane is now a content byte or a zero style: the packs cannot saturate.
  const __m128i w0 = _mm_packs_epi32(a0, a1), w1 = _mm_packs_epi32(a2, a3);
  const __m128i w2 = _mm_packs_epi32(a4, a5), w3 = _mm_packs_epi32(a6, a7);
  // Bytes c, 0, c, 0, …: read as 16-bit lanes they are the contents, packed once more.
  const __m128i b0 = _mm_packus_epi16(w0, w1), b1 = _mm_packus_epi16(w2, w3);
  _mm_storeu_si128((__m128i *)(void *)out, _mm_packus_epi16(b0, b1));
  return 1;
}

/// The same for 8 cells to 8 bytes: the packs' upper halves are left over and not stored.
static inline int reel_pack_8_plain_ascii_cells(const unsigned char *cells, unsigned char *out) {
  const __m128i notASCII = _mm_set_epi32(-1, (int)0xFFFFFF80u, -1, (int)0xFFFFFF80u);
  const __m128i *p = (const __m128i *)(const void *)cells;
  const __m128i a0 = _mm_loadu_si128(p), a1 = _mm_loadu_si128(p + 1);
  const __m128i a2 = _mm_loadu_si128(p + 2), a3 = _mm_loadu_si128(p + 3);
  const __m128i any = _mm_or_si128(_mm_or_si128(a0, a1), _mm_or_si128(a2, a3));
  if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(any, notASCII), _mm_setzero_si128())) != 0xFFFF)
    return 0;
  const __m128i w0 = _mm_packs_epi32(a0, a1), w1 = _mm_packs_epi32(a2, a3);
  const __m128i b0 = _mm_packus_epi16(w0, w1);
  _mm_storel_epi64((__m128i *)(void *)out, _mm_packus_epi16(b0, b0));
  return 1;
}
#endif

/// `reel_pack_plain_ascii_cells_portable`, sixteen cells a step with SSE2. The cells past the
/// last whole step are packed by one more step that ends at the row's end and overlaps the one
/// before (it writes the same bytes again), not by a loop over the tail: how long the tail is
/// changes line by line, and that loop's exit was a mispredicted branch on most lines.
static inline int reel_pack_plain_ascii_cells(const void *cells, size_t count, void *out) {
#if defined(__SSE2__)
  const unsigned char *bytes = (const unsigned char *)cells;
  unsigned char *packed = (unsigned char *)out;
  if (count >= 16) {
    size_t k = 0;
    do {
      if (!reel_pack_16_plain_ascii_cells(bytes + 8 * k, packed + k)) return 0;
      k += 16;
    } while (k + 16 <= count);
    return k == count || reel_pack_16_plain_ascii_cells(bytes + 8 * (count - 16), packed + count - 16);
  }
  if (count >= 8) {
    return reel_pack_8_plain_ascii_cells(bytes, packed)
           && reel_pack_8_plain_ascii_cells(bytes + 8 * (count - 8), packed + count - 8);
  }
  return reel_pack_plain_ascii_cells_portable(cells, count, out);
#else
  return reel_pack_plain_ascii_cells_portable(cells, count, out);
#endif
}

/// Sets the first `count` cells at `cells` to blank (eight zero bytes each), with 16-byte
/// stores, any alignment. Recycling a line clears it only up to its extent, which varies
/// line by line: `memset` with a length that changes at random mispredicted its size
/// dispatch (an indirect jump) on every line. The stores here overlap instead of branching
/// on the tail: one loop and a branch on the length class.
static inline void reel_clear_cells(void *cells, size_t count) {
  unsigned char *p = (unsigned char *)cells;
  const size_t bytes = 8 * count;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
#define REEL_ZERO16(at) _mm_storeu_si128((__m128i *)(void *)(at), zero)
#else
  static const unsigned char zeros[16] = {0};
#define REEL_ZERO16(at) memcpy((at), zeros, 16)
#endif
  if (bytes >= 64) {
    size_t k = 0;
    do {
      REEL_ZERO16(p + k);
      REEL_ZERO16(p + k + 16);
      REEL_ZERO16(p + k + 32);
      REEL_ZERO16(p + k + 48);
      k += 64;
    } while (k + 64 <= bytes);
    if (k < bytes) {
      unsigned char *last = p + bytes - 64;
      REEL_ZERO16(last);
      REEL_ZERO16(last + 16);
      REEL_ZERO16(last + 32);
      REEL_ZERO16(last + 48);
    }
  } else if (bytes >= 16) {
    REEL_ZERO16(p);
    REEL_ZERO16(p + bytes - 16);
    if (bytes > 32) {
      REEL_ZERO16(p + 16);
      REEL_ZERO16(p + bytes - 32);
    }
  } else if (bytes == 8) {
    const uint64_t zero64 = 0;
    memcpy(p, &zero64, 8);
  }
#undef REEL_ZERO16
}

#endif
