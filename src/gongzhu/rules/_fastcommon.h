/*
 * Shared by the one-deck (_fastplay.c) and two-deck (_fastplay2.c) fast paths: card indices and
 * masks (R1, R2), the heart tables, the discard-colour masks, and the PRNG.  Included by each C file
 * (every definition is static), so each extension module stays one translation unit.
 */
#ifndef GONGZHU_FASTCOMMON_H
#define GONGZHU_FASTCOMMON_H

#include <stdint.h>


/* ------------------------------------------------------------------ cards (R1, R2) */

#define SUIT_BITS 0x1FFFULL
#define SUIT_MASK(s) (SUIT_BITS << (13 * (s)))
#define ALL_CARDS_MASK ((1ULL << 52) - 1)
#define CARD_QS 10 /* 0 * 13 + (12 - 2) */
#define CARD_AH 25 /* 1 * 13 + (14 - 2) */
#define CARD_TC 34 /* 2 * 13 + (10 - 2) */
#define CARD_JD 48 /* 3 * 13 + (11 - 2) */
#define CARD_C2 26 /* 2 * 13 + (2 - 2) */
#define CARD_S3 1  /* 0 * 13 + (3 - 2) */
#define HEARTS_MASK SUIT_MASK(1)
#define POINT_MASK (HEARTS_MASK | (1ULL << CARD_QS) | (1ULL << CARD_JD) | (1ULL << CARD_TC))
#define BLACK_MASK (SUIT_MASK(0) | SUIT_MASK(2))
#define RED_MASK (SUIT_MASK(1) | SUIT_MASK(3))

/* Index into FpPos.factor / dealt_to: the four exposable cards in R4.1 order. */
enum { SP_QS = 0, SP_JD = 1, SP_TC = 2, SP_AH = 3 };
static const int SPECIAL_CARD[4] = {CARD_QS, CARD_JD, CARD_TC, CARD_AH};

/* R5.2 discard_color: by led suit, the cards of the same colour. */
static const uint64_t COLOR_OF_SUIT[4] = {BLACK_MASK, RED_MASK, BLACK_MASK, RED_MASK};

/* R2 heart values by rank 2..A: standard table and the book table (heart_values=book). */
static const int HEART_STANDARD[13] = {0, 0, 0, -10, -10, -10, -10, -10, -10, -20, -30, -40, -50};
static const int HEART_BOOK[13] = {-2, -3, -10, -5, -6, -7, -8, -9, -10, -20, -30, -40, -50};

enum { COLOR_OFF = 0, COLOR_ENFORCE = 1, COLOR_PENALTY = 2 };


/* Shared by the heuristic playout policies of both fast paths. */
#define HEUR_RANDOM_PER_256 26 /* share of uniformly random choices, in 1/256 (about 10%) */
#define HEUR_TC_RISK 60        /* taking the ♣10 counts this much worse than its value now */
#define BIT(c) (1ULL << (c))
#define CARD_AS 12
#define CARD_KS 11
#define HIGH_HEARTS (BIT(22) | BIT(23) | BIT(24) | BIT(25)) /* ♥J Q K A */
#define MID_HEARTS (SUIT_MASK(1) & ~HIGH_HEARTS & ~(BIT(13) | BIT(14) | BIT(15))) /* ♥5..10 */
#define DIAMONDS_OVER_J (BIT(49) | BIT(50) | BIT(51))
#define CLUBS_OVER_10 (BIT(35) | BIT(36) | BIT(37) | BIT(38))
static inline int hi_card(uint64_t m) { return 63 - __builtin_clzll(m); }
static inline int lo_card(uint64_t m) { return __builtin_ctzll(m); }

/* ------------------------------------------------------------------ heuristic playout cores */

/* The decisions of the heuristic playout policy that read only card sets, shared by the one-deck
 * (policy_heuristic) and two-deck (policy_heuristic2) policies.  `held`: the mover's cards (held at
 * least once); `lens[u]`: its number of cards of suit u (copies counted); `out`: the cards some
 * other seat still holds. */

/* A discard's first choices: ♠Q, then ♥A K Q J, ♠A/♠K while a ♠Q is out, middle hearts; -1 if
 * none of them is a candidate (the caller then weighs the ♣10, then heur_discard_rest). */
static inline int heur_discard_first(uint64_t cand, uint64_t out)
{
    uint64_t x;
    if (cand & BIT(CARD_QS))
        return CARD_QS;
    if ((x = cand & HIGH_HEARTS))
        return hi_card(x);
    if ((out & BIT(CARD_QS)) && (x = cand & (BIT(CARD_AS) | BIT(CARD_KS))))
        return hi_card(x);
    if ((x = cand & MID_HEARTS))
        return hi_card(x);
    return -1;
}

/* Else, keeping the ♦J and the ♣10: the highest card of the shortest suit (to become void). */
static inline int heur_discard_rest(uint64_t cand, const int lens[4])
{
    uint64_t x = cand & ~(BIT(CARD_JD) | BIT(CARD_TC));
    if (x)
        cand = x;
    int best_u = -1, best_len = 99;
    for (int u = 0; u < 4; u++) {
        if (!(cand & SUIT_MASK(u)))
            continue;
        int len = lens[u];
        if (len < best_len || (len == best_len && hi_card(cand & SUIT_MASK(u)) % 13 >
                                                     hi_card(cand & SUIT_MASK(best_u)) % 13)) {
            best_len = len;
            best_u = u;
        }
    }
    return hi_card(cand & SUIT_MASK(best_u));
}

/* A lead: take the sheep home or hunt it (牵羊), else low in the safest suit (rbits: random
 * tie-breaks).  With two decks an identical copy played later loses, so a top diamond equal to
 * the best one out still wins (>=; with one deck the two are never equal). */
static inline int heur_lead_core(uint64_t legal, uint64_t out, uint64_t held, const int lens[4], uint64_t rbits)
{
    uint64_t avoid = BIT(CARD_QS), x;
    if (out & BIT(CARD_QS))
        avoid |= BIT(CARD_AS) | BIT(CARD_KS);
    if (out & DIAMONDS_OVER_J)
        avoid |= BIT(CARD_JD);
    if (out & CLUBS_OVER_10)
        avoid |= BIT(CARD_TC);
    uint64_t cand = legal;
    if ((x = cand & ~avoid))
        cand = x;
    uint64_t diamonds = cand & SUIT_MASK(3), out_diamonds = out & SUIT_MASK(3);
    if ((diamonds & BIT(CARD_JD)) && out_diamonds && !(out & DIAMONDS_OVER_J))
        return CARD_JD; /* the sheep is the top diamond: lead it to take it back */
    if ((out & BIT(CARD_JD)) && diamonds && hi_card(diamonds) >= hi_card(out_diamonds))
        return hi_card(diamonds); /* 牵羊: the top diamond, while the sheep is out */
    int pig_catchers = (held & (BIT(CARD_QS) | BIT(CARD_AS) | BIT(CARD_KS))) != 0;
    int best_u = -1, best = 1 << 30;
    for (int u = 0; u < 4; u++) {
        uint64_t mine = cand & SUIT_MASK(u);
        if (!mine)
            continue;
        uint64_t theirs = out & SUIT_MASK(u);
        int lo = lo_card(mine);
        int score;
        if (!theirs) {
            score = 1000; /* it wins the trick and everybody else discards */
        } else {
            score = 8 * __builtin_popcountll(theirs & (BIT(lo) - 1)) + 2 * lens[u];
            if (u == 1)
                score += 6; /* hearts: rather later */
            else if (u == 0 && (out & BIT(CARD_QS)))
                score += pig_catchers ? 6 : -6; /* 拱猪 without ♠Q ♠K ♠A */
            else if (u == 0 && (held & BIT(CARD_QS)))
                score += 20;
        }
        score = score * 4 + (int)(rbits >> (2 * u) & 3); /* random tie-break */
        if (score < best) {
            best = score;
            best_u = u;
        }
    }
    return lo_card(cand & SUIT_MASK(best_u));
}

/* ------------------------------------------------------------------ PRNG */

/* xoshiro256++ seeded through splitmix64 (Blackman & Vigna). */
typedef struct {
    uint64_t s[4];
} FpRng;

static inline uint64_t splitmix64_next(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* The stream of one playout / one deal: a function of (seed, index) only, so results do not
 * depend on how work is split over threads. */
static void rng_seed(FpRng *r, uint64_t seed, uint64_t index)
{
    uint64_t x = mix64(seed ^ mix64(index + 0x632BE59BD9B4E019ULL));
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64_next(&x);
}

static inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(FpRng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl64(s[0] + s[3], 23) + s[0];
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

/* Unbiased integer in [0, k), k >= 1 (Lemire's multiply-and-reject). */
static inline uint32_t rng_bounded(FpRng *r, uint32_t k)
{
    uint64_t m = (rng_next(r) >> 32) * (uint64_t)k;
    uint32_t l = (uint32_t)m;
    if (l < k) {
        uint32_t t = (uint32_t)(-k) % k;
        while (l < t) {
            m = (rng_next(r) >> 32) * (uint64_t)k;
            l = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* Index of the k-th (0-based) set bit of m; k < popcount(m). */
static inline int kth_bit(uint64_t m, uint32_t k)
{
    for (; k; k--)
        m &= m - 1;
    return __builtin_ctzll(m);
}

#endif /* GONGZHU_FASTCOMMON_H */
