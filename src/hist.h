/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear histogram layout, shared by the BPF program and userspace.
 *
 * Bucket 0 holds every value below 2^HIST_LOW_SHIFT ns (16 ns). Above
 * that, each power of two is split into HIST_SUB linear sub-buckets, so a
 * bucket is at most 1/HIST_SUB (6.25%) wide relative to its lower bound and
 * its midpoint is within 3.125% of any value inside it. The last bucket
 * also takes every value beyond its nominal range (2^(HIST_HIGH_SHIFT+1) ns,
 * 4.3 s: a hold or flush that long is a stalled machine); the exact maximum
 * is kept separately. (Builds before issue 13 (2026-12-01), also 0.1.0,
 * ran the range to 2^35 ns; the 48 buckets above 2^32 were 5.5 MiB of
 * homes at 10 000 entries, and files written then are read with those
 * buckets folded into the last.)
 */
#ifndef RSTATLAT_HIST_H
#define RSTATLAT_HIST_H

#define HIST_SUB_BITS	4
#define HIST_SUB	(1 << HIST_SUB_BITS)
#define HIST_LOW_SHIFT	4	/* first log bucket starts at 16 ns */
#define HIST_HIGH_SHIFT	31	/* last octave is [2^31, 2^32) ns */
#define HIST_BUCKETS	(1 + (HIST_HIGH_SHIFT - HIST_LOW_SHIFT + 1) * HIST_SUB)

/* Index of the most significant set bit; v must be non-zero. */
static __always_inline unsigned int hist_msb(__u64 v)
{
	unsigned int r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r;
}

static __always_inline unsigned int hist_bucket(__u64 v)
{
	unsigned int msb, octave, sub;

	if (v < (1ULL << HIST_LOW_SHIFT))
		return 0;
	msb = hist_msb(v);
	if (msb > HIST_HIGH_SHIFT)
		return HIST_BUCKETS - 1;
	octave = msb - HIST_LOW_SHIFT;
	sub = (v >> (msb - HIST_SUB_BITS)) & (HIST_SUB - 1);
	return 1 + octave * HIST_SUB + sub;
}

/* Inclusive lower bound of bucket b, in ns. */
static __always_inline __u64 hist_bucket_lower(unsigned int b)
{
	unsigned int octave, sub;

	if (b == 0)
		return 0;
	octave = (b - 1) / HIST_SUB;
	sub = (b - 1) % HIST_SUB;
	return (__u64)(HIST_SUB + sub) << (octave + HIST_LOW_SHIFT - HIST_SUB_BITS);
}

/* Exclusive upper bound of bucket b, in ns (nominal for the last bucket). */
static __always_inline __u64 hist_bucket_upper(unsigned int b)
{
	if (b == 0)
		return 1ULL << HIST_LOW_SHIFT;
	return hist_bucket_lower(b) +
	       (1ULL << ((b - 1) / HIST_SUB + HIST_LOW_SHIFT - HIST_SUB_BITS));
}

/*
 * Octaves, the layout of the flushers' histograms (rstatlat.h, flushers):
 * octave 0 holds every value below 2^HIST_LOW_SHIFT ns, octave k >= 1 the
 * values from 2^(k + HIST_LOW_SHIFT - 1) ns to twice that, and the last
 * (HIST_OCTAVES - 1) also everything beyond 2^HIST_HIGH_SHIFT ns: the
 * same range as the buckets above, one bucket per power of two.
 */
#define HIST_OCTAVES	(HIST_HIGH_SHIFT - HIST_LOW_SHIFT + 2)

static __always_inline unsigned int hist_octave(__u64 v)
{
	unsigned int msb;

	if (v < (1ULL << HIST_LOW_SHIFT))
		return 0;
	msb = hist_msb(v);
	return (msb > HIST_HIGH_SHIFT ? HIST_HIGH_SHIFT : msb) - HIST_LOW_SHIFT + 1;
}

/* The bucket that begins where octave k does: an octave's count can stand there. */
static __always_inline unsigned int hist_octave_bucket(unsigned int k)
{
	return k ? 1 + (k - 1) * HIST_SUB : 0;
}

#endif /* RSTATLAT_HIST_H */
