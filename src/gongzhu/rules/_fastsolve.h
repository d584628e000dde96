/*
 * The exact open-card solver for one-deck positions (included by _fastplay.c after the position,
 * fp_legal, fp_apply and fp_seat_score, so it plays and scores by the same transcription of the
 * rules as the playouts).
 *
 * "Open cards": every hand is seen.  The value of a position is the final value of
 *     sum over seats s of w[s] * raw_s
 * (R6 raw scores of the finished deal) under best play, where the seats with w[s] > 0 maximise it
 * and the others minimise it: the paranoid solution concept for individual scoring (the seat
 * under review against a coalition of the other three, w = 3 for it and -1 for each other: its
 * raw score minus the others' mean, times 3), and the exact two-team zero-sum game under
 * scoring=partners (w = +1 for the team, -1 for the other).  Scores are not additive (the ♣10
 * doubles, 满红 and 满贯 flip signs), so the value of a position is in general not "what is left
 * to take": the search carries what each seat has captured and scores at the end.
 *
 * Three regimes of a position, by what its captured cards still allow (R6):
 *   A  at most one seat has taken hearts: 满红 (and 满贯) may still come, nothing is additive;
 *   B  two seats have taken hearts (no 满红, no 满贯 any more) but the ♣10 is still in a hand:
 *      each seat's score is its "pile" P_s (the sum of the values of its point cards but the ♣10,
 *      exposure factors and R6.1 self-catch included), times the ♣10 multiplier for whoever
 *      takes the ♣10 (or its alone value, R6 step 7);
 *   C  hearts split and the ♣10 taken by seat t: every card still to be taken adds its value,
 *      times t's multiplier if t takes it, to the final value (t's alone value aside: the first
 *      point card t takes turns its 50 into the multiplied pile).  The rest of the deal adds a
 *      "future value" that depends on the hands, on t and on whether t's pile is the ♣10 alone,
 *      and not on who took what before.
 *
 * The search is a fail-soft alpha-beta over single cards with
 *   - a transposition table probed and stored at the start of each trick, holding bounds and the
 *     best card, keyed by the hands "compacted" (only the order of the cards left in a suit and
 *     what each scores matter: see sv_key), the exposed cards still bound (R4.3) with the suits
 *     led that matter for them, the leader, the ♣2 obligation, and what the captured cards mean
 *     for the rest of the deal: in regime A per seat its heart sum and count and whether it took
 *     ♠Q ♦J ♣10 ♥A; in B per seat its pile and whether it holds any point card; in C only t and
 *     whether t's pile is the ♣10 alone, the bounds being stored relative to the score so far
 *     (so every history that reaches the same hands shares one entry);
 *   - bounds on the final value from the point cards still out (sv_bounds): the most and the
 *     least each card can add, whoever takes it, for each possible taker of the ♣10, and in
 *     regime A for 满红 and 满贯 as well; a position whose bounds fall outside the window, or
 *     meet, is decided without search (this includes the end: no point card left);
 *   - equivalent cards grouped: cards of one hand, one suit, with no card between them held by
 *     another seat or lying in the trick, of equal scoring role (the same heart value; no special
 *     card) and equally bound by R4.3, are one move;
 *   - move ordering: the table's best card first, then cheap heuristics (duck under a trick with
 *     points, win a trick with the ♦J, dump the ♠Q and high hearts, lead low);
 *   - exact values found by null-window searches from above (sv_solve): proving that a value is
 *     reached is the costly search (every answer of the other side is searched), so it is done
 *     once, at the exact value; narrow windows let the bounds above decide most positions, and
 *     the table makes the repeated searches cheap.
 * The table is a generation-stamped array that starts small and doubles as it fills (up to
 * table_bits): a position of another deal (other exposure factors, dealt cards or options)
 * starts a new generation instead of clearing memory, and a small search stays in cache.
 *
 * Tried, measured (benchmarks/solver.py) and dropped for saving less than they cost, or for no
 * steady gain: table entries inside tricks, bounds inside tricks, no table in the last two
 * tricks, a history heuristic, root searches from below (MTD(f) from the previous value) or
 * overshooting and bisecting, partition search (an entry valid for every position that differs
 * only in who holds the low cards of ♠ ♣ ♦ that won no contested trick, in buckets of 4 or 8 entries
 * per class of suit lengths: at 8 tricks left as many nodes, each dearer; docs/benchmarks.md).
 */

#define SV_INF ((int64_t)1 << 40)
#define SV_NONE 0xFF
#define SV_MIN_BITS 14      /* the table starts with 2**14 entries (1 MiB) */
#define SV_LO_NONE INT32_MIN /* an entry's lower bound when it has none */
#define SV_HI_NONE INT32_MAX /* ... its upper bound */

typedef struct {
    uint64_t hand[4]; /* sv_key: the hands, compacted */
    uint64_t restr;   /* sv_key: the bound cards, the leader, the suits led, the ♣2 obligation... */
    uint64_t aux;     /* sv_key: what the captured cards mean for the rest of the deal */
    int32_t lo, hi;   /* bounds on the value, relative to the key's base (0 outside regime C) */
    uint8_t best;     /* the best card found (named as in the key), SV_NONE if none */
    uint8_t cards;    /* cards in the hands (for replacement) */
    uint16_t gen;     /* the generation that wrote it: entries of other generations are empty */
    uint32_t pad;
} SvEntry;

_Static_assert(sizeof(SvEntry) == 64, "SvEntry is one cache line");
/* Values fit the entry's int32 bounds, relative ones included: a raw score is at most 41,600 in
 * size (满贯 with every card exposed x4 and the ♣10 self-caught: 2,600 x 16, R6, R6.1, R10), a
 * weight at most 1,000 (Solver_new), and a relative value the difference of two values. */
_Static_assert(2LL * 4 * 1000 * 41600 < INT32_MAX, "relative values fit in int32");

/* The per-deal constants of a position: the table holds values for one set of them at a time. */
typedef struct {
    int32_t factor[4];
    int8_t dealt_to[4];
    uint8_t step, edbsl, discard_color, heart_book, self_catch, pad[3];
} SvConst;

typedef struct {
    SvEntry *tt;
    uint64_t tt_mask;  /* entries in use - 1 (a power of two) */
    uint64_t max_mask; /* entries allocated - 1 */
    uint64_t filled;   /* entries of this generation written into empty slots */
    uint16_t gen;      /* the current generation, >= 1 */
    int64_t w[4];
    uint64_t nodes;
    SvConst constants; /* of the positions the table holds */
    int used;          /* the table holds something */
    uint64_t limit;    /* stop once nodes passes this (0: no limit) */
    int aborted;       /* the search stopped at the limit: its values mean nothing */
    /* Per deal (sv_prepare): the additive value of point card c to seat s (the ♣10 aside: 0),
     * exposure factors and self-catch included; times w[s]; times w[s] and s's ♣10 multiplier. */
    int64_t val[4][52];
    int64_t mult[4];  /* the ♣10 multiplier of seat s (R6 step 7, R4.2, R6.1) */
    int64_t alone[4]; /* the ♣10's value alone for seat s */
    int64_t allh[4];  /* the value of all 13 hearts to seat s (满红: positive) */
    int64_t slam[4];  /* s's score with every point card (满贯) */
    /* What point card c adds to the objective at most / at least when seat t holds the ♣10 at the
     * end: taken by anyone (t's multiplier applying to t), or by anyone but t. */
    int64_t hi_all[4][52], lo_all[4][52], hi_not[4][52], lo_not[4][52];
} SvCtx;

static void sv_constants(const FpPos *p, SvConst *k)
{
    memset(k, 0, sizeof *k);
    memcpy(k->factor, p->factor, sizeof k->factor);
    memcpy(k->dealt_to, p->dealt_to, sizeof k->dealt_to);
    k->step = p->step;
    k->edbsl = p->edbsl;
    k->discard_color = p->discard_color;
    k->heart_book = p->heart_book;
    k->self_catch = p->self_catch;
}

/* Forget every entry: a new generation (memory is cleared only when the stamp wraps round), and
 * the table back to its first size. */
static void sv_new_generation(SvCtx *S)
{
    if (++S->gen == 0) {
        memset(S->tt, 0, (S->max_mask + 1) * sizeof(SvEntry));
        S->gen = 1;
    }
    uint64_t first = ((uint64_t)1 << SV_MIN_BITS) - 1;
    S->tt_mask = first < S->max_mask ? first : S->max_mask;
    S->filled = 0;
}

/* The per-deal value tables of SvCtx, from the rules' own scoring (fp_seat_score): the value of a
 * point card to a seat is its score with that card alone; the ♣10 multiplies a pile of other
 * point cards by 2 * its factor (twice that when self-caught), and alone is worth its own score. */
static void sv_tables(SvCtx *S, const FpPos *p)
{
    memset(S->val, 0, sizeof S->val);
    for (int s = 0; s < 4; s++) {
        for (int c = 0; c < 52; c++)
            if ((POINT_MASK >> c & 1) && c != CARD_TC)
                S->val[s][c] = fp_seat_score(p, s, BIT(c));
        int64_t self = p->self_catch && p->dealt_to[SP_TC] == s ? 2 : 1;
        S->mult[s] = 2 * (int64_t)p->factor[SP_TC] * self;
        S->alone[s] = fp_seat_score(p, s, BIT(CARD_TC));
        S->allh[s] = fp_seat_score(p, s, HEARTS_MASK);
        S->slam[s] = fp_seat_score(p, s, POINT_MASK);
    }
    for (int t = 0; t < 4; t++)
        for (int c = 0; c < 52; c++) {
            int64_t g = S->w[t] * S->mult[t] * S->val[t][c], hn = -SV_INF, ln = SV_INF;
            for (int s = 0; s < 4; s++) {
                int64_t x = S->w[s] * S->val[s][c];
                if (s != t) {
                    hn = x > hn ? x : hn;
                    ln = x < ln ? x : ln;
                }
            }
            S->hi_not[t][c] = hn;
            S->lo_not[t][c] = ln;
            S->hi_all[t][c] = g > hn ? g : hn;
            S->lo_all[t][c] = g < ln ? g : ln;
        }
}

/* Start a call on p: a new generation when p belongs to a deal with other constants than the
 * positions the table holds. */
static void sv_prepare(SvCtx *S, const FpPos *p)
{
    SvConst k;
    sv_constants(p, &k);
    if (!S->used || memcmp(&k, &S->constants, sizeof k) != 0) {
        if (S->used)
            sv_new_generation(S);
        S->constants = k;
        sv_tables(S, p);
    }
    S->used = 1;
}

/* Bits set in x (the builtin is a library call unless the build targets the popcnt instruction). */
static inline int sv_popcount(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

static inline uint64_t sv_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* What the cards captured so far mean for the rest of the deal: the regime (see the header) and
 * its numbers.  They change only when a trick ends, so the search computes them once at the root
 * (sv_info) and updates them with each finished trick (sv_info_take). */
typedef struct {
    int regime;      /* 0: A, 1: B, 2: C */
    int hseats;      /* the seats that have taken hearts (a bit each) */
    int t;           /* who took the ♣10, -1 if nobody yet */
    int alone;       /* C: t's pile is the ♣10 alone */
    uint64_t aux_a;  /* A's table key: per seat (16 bits) minus its heart sum (8 bits), its
                      * number of hearts (4 bits), whether it took ♠Q ♦J ♣10 ♥A (4 bits) */
    int64_t base;    /* C: the value if the deal ended now; B: sum of w[s] * pile[s] */
    int64_t pile[4]; /* each seat's pile: the value of its point cards but the ♣10 (B, C) */
    int64_t hp[4];   /* the hearts' part of that pile */
    int ne[4];       /* whether that pile holds any point card */
} SvInfo;

static inline void sv_info_finish(const SvCtx *S, SvInfo *I)
{
    I->regime = !(I->hseats & (I->hseats - 1)) ? 0 : I->t < 0 ? 1 : 2;
    int64_t base = 0;
    for (int s = 0; s < 4; s++)
        base += S->w[s] * I->pile[s];
    if (I->regime == 2) {
        int t = I->t;
        I->alone = !I->ne[t];
        base += S->w[t] * (I->alone ? S->alone[t] : (S->mult[t] - 1) * I->pile[t]);
    }
    I->base = base;
}

/* Seat s takes the point cards `pts` (without recomputing the regime and the base). */
static inline void sv_info_add(const SvCtx *S, SvInfo *I, int s, uint64_t pts)
{
    const int *hv = S->constants.heart_book ? HEART_BOOK : HEART_STANDARD;
    uint32_t hearts = (uint32_t)((pts >> 13) & SUIT_BITS);
    int hsum = 0;
    for (uint32_t m = hearts; m; m &= m - 1)
        hsum -= hv[__builtin_ctz(m)];
    uint64_t flags = (pts >> CARD_QS & 1) | (pts >> CARD_JD & 1) << 1 | (pts >> CARD_TC & 1) << 2 |
                     (pts >> CARD_AH & 1) << 3;
    /* Fields never overflow (a heart sum below 256, at most 13 hearts, each flag set once). */
    I->aux_a += ((uint64_t)hsum | (uint64_t)sv_popcount(hearts) << 8 | flags << 12) << (16 * s);
    if (hearts)
        I->hseats |= 1 << s;
    if (pts & BIT(CARD_TC))
        I->t = s;
    uint64_t rest = pts & ~BIT(CARD_TC);
    for (uint64_t m = rest; m; m &= m - 1) {
        int64_t v = S->val[s][lo_card(m)];
        I->pile[s] += v;
        I->hp[s] += lo_card(m) / 13 == 1 ? v : 0;
    }
    I->ne[s] |= rest != 0;
}

static void sv_info(const SvCtx *S, const FpPos *p, SvInfo *I)
{
    memset(I, 0, sizeof *I);
    I->t = -1;
    for (int s = 0; s < 4; s++)
        sv_info_add(S, I, s, p->captured[s] & POINT_MASK);
    sv_info_finish(S, I);
}

/* The info after a finished trick whose point cards `pts` went to `taker`. */
static inline void sv_info_take(const SvCtx *S, const SvInfo *I, int taker, uint64_t pts, SvInfo *out)
{
    *out = *I;
    if (pts) {
        sv_info_add(S, out, taker, pts);
        sv_info_finish(S, out);
    }
}

/* Bounds on sum w[s] * score[s] over the additive outcomes: seat s scores its pile P[s] (ne[s]:
 * it holds a point card) plus the value of the cards of `rest` it takes, the ♣10's holder t (`tc`,
 * or any seat if tc < 0) that times its multiplier, or its alone value if its pile stays empty.
 * Each card adds, whoever takes it, between the least and the most it can. */
static inline void sv_additive(const SvCtx *S, const int64_t P[4], const int ne[4], int tc, uint64_t rest,
                               int64_t *lb, int64_t *ub)
{
    int64_t sum = S->w[0] * P[0] + S->w[1] * P[1] + S->w[2] * P[2] + S->w[3] * P[3];
    int64_t lo = SV_INF, hi = -SV_INF;
    for (int t = tc < 0 ? 0 : tc; t < (tc < 0 ? 4 : tc + 1); t++) {
        int64_t ha = 0, la = 0, hn = 0, ln = 0;
        for (uint64_t m = rest; m; m &= m - 1) {
            int c = lo_card(m);
            ha += S->hi_all[t][c];
            la += S->lo_all[t][c];
            hn += S->hi_not[t][c];
            ln += S->lo_not[t][c];
        }
        int64_t base = sum + S->w[t] * (S->mult[t] - 1) * P[t];
        int64_t h1 = base + ha, l1 = base + la;
        if (!ne[t]) { /* t may end with the ♣10 alone (its pile is worth 0 now) */
            int64_t a = sum + S->w[t] * S->alone[t];
            if (!rest)
                h1 = l1 = a;
            h1 = h1 > a + hn ? h1 : a + hn;
            l1 = l1 < a + ln ? l1 : a + ln;
        }
        hi = h1 > hi ? h1 : hi;
        lo = l1 < lo ? l1 : lo;
    }
    *lb = lo;
    *ub = hi;
}

/* Bounds on the final value from the point cards `rest` (the ♣10 aside) still to be taken.  In
 * regimes B and C the outcomes are additive (sv_additive).  In A they are the additive ones if the
 * hearts end split, or one seat Y takes every heart (满红: its hearts count positive; Y is the seat
 * that has hearts, if one has), the ♠Q and ♦J going anywhere, or Y takes every point card (满贯,
 * counted exactly).  A bound that admits outcomes that cannot happen is still a bound. */
static inline void sv_bounds(const SvCtx *S, const SvInfo *I, uint64_t rest, int64_t *lb, int64_t *ub)
{
    if (I->regime) {
        sv_additive(S, I->pile, I->ne, I->regime == 2 ? I->t : -1, rest, lb, ub);
        return;
    }
    int64_t lo = SV_INF, hi = -SV_INF, l1, h1;
    if (rest & HEARTS_MASK) { /* the hearts may end split */
        sv_additive(S, I->pile, I->ne, I->t, rest, &l1, &h1);
        lo = l1;
        hi = h1;
    }
    for (int y = 0; y < 4; y++) {
        if (I->hseats && !(I->hseats >> y & 1))
            continue;
        int64_t P[4];
        int ne[4];
        int alone = 1; /* nobody else holds a point card: y may take them all */
        for (int s = 0; s < 4; s++) {
            P[s] = I->pile[s];
            ne[s] = I->ne[s];
            if (s != y && (I->ne[s] || I->t == s))
                alone = 0;
        }
        P[y] += S->allh[y] - I->hp[y];
        ne[y] = 1;
        sv_additive(S, P, ne, I->t, rest & (BIT(CARD_QS) | BIT(CARD_JD)), &l1, &h1);
        lo = l1 < lo ? l1 : lo;
        hi = h1 > hi ? h1 : hi;
        if (alone) {
            int64_t v = S->w[y] * S->slam[y];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    }
    *lb = lo;
    *ub = hi;
}

/*
 * A trick-start position's table key.  Positions that differ only in cards already played are
 * often the same game: only the order of the cards left in a suit matters, and which of them
 * score what.  So the key holds the hands "compacted": in ♠ ♣ ♦ the cards left are renumbered
 * 2, 3, 4, ... in rank order, the ♠Q ♣10 ♦J (if left) being named by their new rank; in ♥,
 * within each run of hearts of equal value (standard values: ♥2-4, ♥5-10), the hearts left are
 * renumbered from the bottom of the run.  Equal keys, equal positions up to the names of cards
 * of equal role, hence equal values.  The ♣2 of the first lead (R5.1) keeps its name: a position
 * that must lead it is not compacted.  The bound cards (R4.3) are exposed special cards, named by
 * four bits.
 */
typedef struct {
    uint64_t hand[4]; /* the compacted hands */
    uint64_t restr;   /* the bound specials, the leader, the suits led that matter for them, the
                       * ♣2 obligation, the regime, the new ranks of ♠Q ♣10 ♦J */
    uint64_t aux;     /* what the captured cards mean: sv_info's numbers for the regime */
    int64_t base;     /* the table's values are relative to it (regime C), else 0 */
    uint64_t left;    /* the cards in the hands (to name cards in and out of the key) */
    int compact;      /* whether the hands are compacted */
    int book;         /* heart_values=book: no run of equal-value hearts (♥4 = ♥10 lie apart) */
} SvKey;

/* The run of equal-value hearts holding heart index h (13..25), as [first, last]. */
static inline void sv_heart_run(int book, int h, int *first, int *last)
{
    *first = *last = h;
    if (book)
        return;
    if (h <= 15) { /* ♥2 ♥3 ♥4: 0 each */
        *first = 13;
        *last = 15;
    } else if (h <= 21) { /* ♥5 .. ♥10: -10 each */
        *first = 16;
        *last = 21;
    }
}

/* The name in the key of card c of the position, and back. */
static inline int sv_to_key(const SvKey *k, int c)
{
    if (!k->compact || c == SV_NONE)
        return c;
    int u = c / 13, first = 13 * u, last = 13 * u + 12;
    if (u == 1)
        sv_heart_run(k->book, c, &first, &last);
    uint64_t run = (BIT(last) << 1) - BIT(first);
    return first + sv_popcount(k->left & run & (BIT(c) - 1));
}

static inline int sv_from_key(const SvKey *k, int kc)
{
    if (!k->compact || kc == SV_NONE)
        return kc;
    int u = kc / 13, first = 13 * u, last = 13 * u + 12;
    if (u == 1)
        sv_heart_run(k->book, kc, &first, &last);
    uint64_t cards = k->left & ((BIT(last) << 1) - BIT(first));
    int j = kc - first;
    if (j >= sv_popcount(cards))
        return SV_NONE;
    return kth_bit(cards, (uint32_t)j);
}

/* Renumber the cards of `cards` (one run of one suit) from index `first` up in the compacted
 * hands `out`; returns the new index of `special` (+1), 0 if it is not among them. */
static inline uint64_t sv_pack(const FpPos *p, uint64_t cards, int first, int special, uint64_t out[4])
{
    uint64_t named = 0;
    int idx = first;
    for (uint64_t m = cards; m; m &= m - 1, idx++) {
        int c = lo_card(m);
        int o = (int)(p->hand[1] >> c & 1) | (int)(p->hand[2] >> c & 1) << 1 | (int)(p->hand[3] >> c & 1) * 3;
        out[o] |= BIT(idx);
        if (c == special)
            named = (uint64_t)(idx - first + 1);
    }
    return named;
}

static void sv_key(const FpPos *p, const SvInfo *I, SvKey *k)
{
    uint64_t bound = p->restr[0] | p->restr[1] | p->restr[2] | p->restr[3];
    uint64_t left = p->hand[0] | p->hand[1] | p->hand[2] | p->hand[3];
    k->left = left;
    k->book = p->heart_book;
    k->compact = !p->must_c2;
    /* The suits led matter only for the bound cards (R4.3): keep the bits of their suits. */
    unsigned bsuits = 0;
    for (int u = 0; u < 4; u++)
        bsuits |= (unsigned)((bound & SUIT_MASK(u)) != 0) << u;
    uint64_t restr = (bound >> CARD_QS & 1) | (bound >> CARD_JD & 1) << 1 | (bound >> CARD_TC & 1) << 2 |
                     (bound >> CARD_AH & 1) << 3 | (uint64_t)p->leader << 4 |
                     (uint64_t)(p->suits_led & bsuits) << 6 | (uint64_t)(p->must_c2 ? 1 : 0) << 10 |
                     (uint64_t)I->regime << 12;
    if (k->compact) {
        uint64_t *out = k->hand;
        for (int s = 0; s < 4; s++)
            out[s] = p->hand[s] & (p->heart_book ? HEARTS_MASK : HIGH_HEARTS); /* kept as they are */
        restr |= sv_pack(p, left & SUIT_MASK(0), 0, CARD_QS, out) << 14;
        restr |= sv_pack(p, left & SUIT_MASK(2), 26, CARD_TC, out) << 18;
        restr |= sv_pack(p, left & SUIT_MASK(3), 39, CARD_JD, out) << 22;
        if (!p->heart_book) {
            sv_pack(p, left & 0xE000ULL, 13, -1, out);    /* ♥2 ♥3 ♥4 */
            sv_pack(p, left & 0x3F0000ULL, 16, -1, out);  /* ♥5 .. ♥10 */
        }
        restr |= 1ULL << 26;
    } else {
        memcpy(k->hand, p->hand, sizeof k->hand);
    }
    k->restr = restr;
    k->base = 0;
    if (I->regime == 0) {
        k->aux = I->aux_a;
    } else if (I->regime == 2) {
        k->aux = (uint64_t)I->t | (uint64_t)I->alone << 2;
        k->base = I->base;
    } else {
        uint64_t aux = 0;
        for (int s = 0; s < 4; s++)
            aux |= (((uint64_t)(I->pile[s] + 4096) & 0x1FFF) | (uint64_t)I->ne[s] << 13) << (14 * s);
        k->aux = aux;
    }
}

static inline uint64_t sv_hash(const uint64_t hand[4], uint64_t restr, uint64_t aux)
{
    uint64_t h = sv_mix(hand[0] ^ 0x9E3779B97F4A7C15ULL);
    h = sv_mix(h ^ hand[1]);
    h = sv_mix(h ^ (hand[2] + 0x632BE59BD9B4E019ULL));
    h = sv_mix(h ^ hand[3]);
    h = sv_mix(h ^ restr);
    return sv_mix(h ^ aux);
}

static inline int sv_match(const SvCtx *S, const SvEntry *e, const SvKey *k)
{
    return e->gen == S->gen && e->aux == k->aux && e->restr == k->restr && e->hand[0] == k->hand[0] &&
           e->hand[1] == k->hand[1] && e->hand[2] == k->hand[2] && e->hand[3] == k->hand[3];
}

/* Double the part of the table in use: each entry stays, or moves to its slot in the new half
 * (where nothing of this generation lies yet); an entry with no free slot there is dropped. */
static void sv_grow(SvCtx *S)
{
    uint64_t old = S->tt_mask + 1, mask = 2 * old - 1;
    for (uint64_t i = 0; i < old; i++) {
        SvEntry *e = &S->tt[i];
        if (e->gen != S->gen)
            continue;
        uint64_t h = sv_hash(e->hand, e->restr, e->aux);
        uint64_t a = h & mask, b = (h ^ 1) & mask;
        if (a == i || b == i)
            continue;
        SvEntry *d = S->tt[a].gen != S->gen ? &S->tt[a] : S->tt[b].gen != S->gen ? &S->tt[b] : NULL;
        if (d)
            *d = *e;
        else
            S->filled--;
        e->gen = 0;
    }
    S->tt_mask = mask;
}

static inline int64_t sv_score(const SvCtx *S, const FpPos *p)
{
    int64_t r[4];
    fp_raw_scores(p, r);
    return S->w[0] * r[0] + S->w[1] * r[1] + S->w[2] * r[2] + S->w[3] * r[3];
}

/* The value of a trick's cards to whoever takes them, roughly (for move ordering only). */
static inline int sv_trick_sign(uint64_t cards)
{
    int v = 0;
    if (cards & HEARTS_MASK)
        v -= 10 * sv_popcount(cards & HEARTS_MASK);
    if (cards & BIT(CARD_QS))
        v -= 100;
    if (cards & BIT(CARD_JD))
        v += 100;
    return v;
}

#define SV_SPECIALS (BIT(CARD_QS) | BIT(CARD_JD) | BIT(CARD_TC) | BIT(CARD_AH))
/* Moves of one position: a hand holds at most 13 cards (get_pos), so at most 13 legal cards. */
#define SV_MAX_MOVES 13

/* One move per group of equivalent legal cards, ordered; returns the number of moves.  With
 * `groups`, groups[i] is the set of cards out[i] stands for.  Two legal cards of the mover are
 * equivalent when they are neighbours in its legal cards of one suit, with no card between them
 * held by another seat or lying in the trick, neither is a special card, they are hearts of one
 * value or no hearts, and R4.3 binds both or neither: the game cannot tell them apart.  At most
 * SV_MAX_MOVES groups: cards past the last one would join it rather than be written past the end
 * (never: a position passes get_pos, whose hands hold 13 cards at most). */
static int sv_moves(const FpPos *p, uint64_t legal, int first, int out[SV_MAX_MOVES], uint64_t *groups)
{
    if (!(legal & (legal - 1))) { /* forced */
        out[0] = lo_card(legal);
        if (groups)
            groups[0] = legal;
        return 1;
    }
    int s = p->turn;
    uint64_t mine = p->hand[s], bound = p->restr[s];
    uint64_t trick = 0;
    int win_c = -1; /* the winning card of the trick so far */
    for (int i = 0; i < p->n_trick; i++) {
        int c = p->trick_card[i];
        trick |= BIT(c);
        if (c / 13 == p->led && c > win_c)
            win_c = c;
    }
    uint64_t others = (p->hand[0] | p->hand[1] | p->hand[2] | p->hand[3] | trick) & ~mine;
    const int *hv = p->heart_book ? HEART_BOOK : HEART_STANDARD;
    /* The groups: climb the legal cards in card order. */
    uint64_t gm[SV_MAX_MOVES];
    int lo[SV_MAX_MOVES], hi[SV_MAX_MOVES];
    int n = 0, prev = -1;
    for (uint64_t m = legal; m; m &= m - 1) {
        int c = lo_card(m);
        if (n == SV_MAX_MOVES ||
            (prev >= 0 && c / 13 == prev / 13 && !(((BIT(c) - 1) & ~((BIT(prev) << 1) - 1)) & others) &&
             !((BIT(c) | BIT(prev)) & SV_SPECIALS) && (c / 13 != 1 || hv[c % 13] == hv[prev % 13]) &&
             ((bound >> c) & 1) == ((bound >> prev) & 1))) {
            gm[n - 1] |= BIT(c);
            hi[n - 1] = c;
        } else {
            gm[n] = BIT(c);
            lo[n] = hi[n] = c;
            n++;
        }
        prev = c;
    }
    int following = p->n_trick > 0 && (legal & SUIT_MASK(p->led));
    int lens[4] = {0, 0, 0, 0};
    if (!following)
        for (int u = 0; u < 4; u++)
            lens[u] = sv_popcount(mine & SUIT_MASK(u));
    int tsign = p->n_trick > 0 ? sv_trick_sign(trick) : 0;
    int score[SV_MAX_MOVES];
    for (int g = 0; g < n; g++) {
        /* Which member stands for the group: the lowest when leading, the highest otherwise
         * (equivalent, so it does not matter for the value; it matters for the line shown). */
        int c = lo[g], top = hi[g], rep = top, sc;
        if (first >= 0 && (gm[g] & BIT(first))) {
            rep = first;
            sc = 1 << 20;
        } else if (p->n_trick == 0) { /* leading: low cards first, point cards last */
            rep = c;
            sc = -(c % 13) * 4 - ((BIT(c) & POINT_MASK) ? 40 : 0) + (lens[c / 13] <= 2 ? -8 : 0);
        } else if (following) { /* duck under a trick with points, win one worth taking */
            int val = tsign + sv_trick_sign(BIT(c));
            if (c > win_c)
                sc = val > 0 ? 200 + (top % 13) : -(top % 13);
            else
                sc = val > 0 ? (top % 13) : 100 + (top % 13);
        } else { /* a discard: the pig, high hearts, high cards of short suits */
            if (c == CARD_QS)
                sc = 500;
            else if (c / 13 == 1)
                sc = 300 + (top % 13);
            else if (c == CARD_JD)
                sc = -100;
            else
                sc = 100 + (top % 13) - 2 * lens[c / 13];
        }
        out[g] = rep;
        score[g] = sc;
    }
    /* Insertion sort, best first. */
    for (int i = 1; i < n; i++) {
        int c = out[i], v = score[i], j = i - 1;
        uint64_t gi = gm[i];
        while (j >= 0 && score[j] < v) {
            out[j + 1] = out[j];
            score[j + 1] = score[j];
            gm[j + 1] = gm[j];
            j--;
        }
        out[j + 1] = c;
        score[j + 1] = v;
        gm[j + 1] = gi;
    }
    if (groups)
        memcpy(groups, gm, (size_t)n * sizeof gm[0]);
    return n;
}

/* The table slot of a key: its entry if there is one (*found = 1), else the slot to replace:
 * an empty one, else the one for fewer cards (cheaper to find again). */
static inline SvEntry *sv_slot(SvCtx *S, const SvKey *k, uint64_t h, int *found)
{
    SvEntry *e0 = &S->tt[h & S->tt_mask];
    SvEntry *e1 = &S->tt[(h ^ 1) & S->tt_mask];
    *found = 1;
    if (sv_match(S, e0, k))
        return e0;
    if (sv_match(S, e1, k))
        return e1;
    *found = 0;
    if (e0->gen != S->gen)
        return e0;
    if (e1->gen != S->gen)
        return e1;
    return e0->cards <= e1->cards ? e0 : e1;
}

static void sv_store(SvCtx *S, const FpPos *p, const SvKey *k, uint64_t h, int64_t lo, int64_t hi, int best)
{
    int found;
    SvEntry *e = sv_slot(S, k, h, &found);
    int32_t rlo = lo <= -SV_INF ? SV_LO_NONE : (int32_t)(lo - k->base);
    int32_t rhi = hi >= SV_INF ? SV_HI_NONE : (int32_t)(hi - k->base);
    if (found) { /* tighten what it held */
        if (e->lo > rlo)
            rlo = e->lo;
        if (e->hi < rhi)
            rhi = e->hi;
    } else {
        if (e->gen != S->gen)
            S->filled++;
        memcpy(e->hand, k->hand, sizeof e->hand);
        e->restr = k->restr;
        e->aux = k->aux;
        e->gen = S->gen;
        e->cards = (uint8_t)sv_popcount(p->hand[0] | p->hand[1] | p->hand[2] | p->hand[3]);
    }
    e->lo = rlo;
    e->hi = rhi;
    e->best = (uint8_t)best;
    if (S->filled > (S->tt_mask + 1) / 2 && S->tt_mask < S->max_mask)
        sv_grow(S);
}

/* The value of p if it lies inside (alpha, beta); else a bound on it on the side of the window it
 * lies (fail-soft).  `I`: what the captured cards mean, computed at the trick's start (NULL there). */
static int64_t sv_search(SvCtx *S, const FpPos *p, int64_t alpha, int64_t beta, const SvInfo *I)
{
    if (++S->nodes > S->limit && S->limit) {
        S->aborted = 1;
        return 0;
    }
    SvInfo info;
    SvKey key;
    uint64_t h = 0;
    int first = -1;
    if (!I) { /* the search starts here */
        sv_info(S, p, &info);
        I = &info;
    }
    if (p->n_trick == 0) {
        uint64_t left = p->hand[0] | p->hand[1] | p->hand[2] | p->hand[3];
        if (!(left & POINT_MASK)) /* the end cut (also the end of the deal): nothing can change */
            return I->regime == 2 ? I->base : sv_score(S, p);
        if (!(p->hand[p->turn] & (p->hand[p->turn] - 1))) { /* the last trick plays itself */
            FpPos q = *p;
            FpTrick done = {{0, 0, 0, 0}, 0, 0, 0, 0};
            for (int i = 0; i < 4; i++)
                fp_apply_rec(&q, lo_card(q.hand[q.turn]), q.hand[q.turn], &done);
            if (I->regime != 2)
                return sv_score(S, &q);
            SvInfo last;
            sv_info_take(S, I, done.taker, left & POINT_MASK, &last);
            return last.base;
        }
        /* Look the slot up early: memory answers while the bounds are worked out. */
        sv_key(p, I, &key);
        h = sv_hash(key.hand, key.restr, key.aux);
        __builtin_prefetch(&S->tt[h & S->tt_mask]);
        int64_t lb, ub;
        sv_bounds(S, I, left & POINT_MASK & ~BIT(CARD_TC), &lb, &ub);
        if (lb >= beta || lb == ub)
            return lb;
        if (ub <= alpha)
            return ub;
        int found;
        SvEntry *e = sv_slot(S, &key, h, &found);
        if (found) {
            int64_t lo = e->lo == SV_LO_NONE ? lb : e->lo + key.base;
            int64_t hi = e->hi == SV_HI_NONE ? ub : e->hi + key.base;
            if (lo < lb)
                lo = lb;
            if (hi > ub)
                hi = ub;
            if (lo >= beta || lo == hi)
                return lo;
            if (hi <= alpha)
                return hi;
            if (lo > alpha)
                alpha = lo;
            if (hi < beta)
                beta = hi;
            first = sv_from_key(&key, e->best);
            if (first == SV_NONE)
                first = -1;
        }
    }
    uint64_t legal = fp_legal(p);
    int moves[SV_MAX_MOVES];
    int n = sv_moves(p, legal, first, moves, NULL);
    int maxing = S->w[(int)p->turn] > 0;
    int64_t a = alpha, b = beta;
    int64_t best = maxing ? -SV_INF : SV_INF;
    int best_c = SV_NONE;
    for (int i = 0; i < n; i++) {
        FpPos q = *p;
        int64_t v;
        if (p->n_trick == 3) { /* the card ends the trick: the next one starts with new info */
            FpTrick done;
            SvInfo next;
            fp_apply_rec(&q, moves[i], legal, &done);
            uint64_t pts = (BIT(done.card[0]) | BIT(done.card[1]) | BIT(done.card[2]) | BIT(done.card[3])) &
                           POINT_MASK;
            sv_info_take(S, I, done.taker, pts, &next);
            v = sv_search(S, &q, a, b, &next);
        } else {
            fp_apply(&q, moves[i], legal);
            v = sv_search(S, &q, a, b, I);
        }
        if (S->aborted)
            return 0; /* nothing is stored: the values below were cut short */
        if (maxing) {
            if (v > best) {
                best = v;
                best_c = moves[i];
                if (v > a)
                    a = v;
            }
        } else if (v < best) {
            best = v;
            best_c = moves[i];
            if (v < b)
                b = v;
        }
        if (a >= b)
            break;
    }
    if (p->n_trick == 0) {
        /* Fail-soft: at or below alpha an upper bound, at or above beta a lower bound. */
        int64_t lo = best > alpha ? best : -SV_INF, hi = best < beta ? best : SV_INF;
        sv_store(S, p, &key, h, lo, hi, sv_to_key(&key, best_c));
    }
    return best;
}

/* The exact value of p by null-window searches from above (a variant of MTD(f)): each search
 * asks "is the value at least beta?" with beta the best upper bound known, and fails low with a
 * lower upper bound, until one succeeds.  Proving that a value is reached costs far more than
 * refuting it (the coalition's every answer must be searched), so the one search that succeeds
 * is the one at the exact value; starting from below, or overshooting and bisecting, measured
 * slower. */
static int64_t sv_solve(SvCtx *S, const FpPos *p)
{
    int64_t hi = SV_INF - 1;
    for (;;) {
        int64_t g = sv_search(S, p, hi - 1, hi, NULL);
        if (S->aborted || g >= hi)
            return hi; /* at least hi, and at most hi (or aborted: meaningless) */
        hi = g;
    }
}

/* ------------------------------------------------------------------ the Python type */

typedef struct {
    PyObject_HEAD
    SvCtx ctx;
    int busy;
} SolverObject;

static PyObject *Solver_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"weights", "table_bits", NULL};
    PyObject *weights;
    int bits = 20;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|i:Solver", kwlist, &weights, &bits))
        return NULL;
    long long w[4];
    if (!PyTuple_Check(weights) || !PyArg_ParseTuple(weights, "LLLL", &w[0], &w[1], &w[2], &w[3])) {
        PyErr_SetString(PyExc_TypeError, "Solver: weights must be a tuple of four ints (N, E, S, W)");
        return NULL;
    }
    int any_max = 0, any_min = 0;
    for (int s = 0; s < 4; s++) {
        if (w[s] > 1000 || w[s] < -1000) {
            PyErr_SetString(PyExc_ValueError, "Solver: each weight must lie in -1000..1000");
            return NULL;
        }
        any_max |= w[s] > 0;
        any_min |= w[s] <= 0;
    }
    if (!any_max || !any_min) {
        PyErr_SetString(PyExc_ValueError, "Solver: some seat must maximise (weight > 0) and some minimise");
        return NULL;
    }
    if (bits < 10 || bits > 26) {
        PyErr_SetString(PyExc_ValueError, "Solver: table_bits must lie in 10..26");
        return NULL;
    }
    SolverObject *self = (SolverObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    size_t n = (size_t)1 << bits;
    self->ctx.tt = PyMem_RawCalloc(n, sizeof(SvEntry));
    if (!self->ctx.tt) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->ctx.max_mask = n - 1;
    sv_new_generation(&self->ctx);
    for (int s = 0; s < 4; s++)
        self->ctx.w[s] = w[s];
    return (PyObject *)self;
}

static void Solver_dealloc(PyObject *op)
{
    SolverObject *self = (SolverObject *)op;
    PyMem_RawFree(self->ctx.tt);
    Py_TYPE(op)->tp_free(op);
}

static int solver_enter(SolverObject *self, const FpPos *p, unsigned long long limit)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Solver: already solving (one call at a time per solver)");
        return -1;
    }
    self->busy = 1;
    self->ctx.aborted = 0;
    self->ctx.limit = limit ? self->ctx.nodes + limit : 0;
    if (p)
        sv_prepare(&self->ctx, p);
    return 0;
}

/* Exact values of every legal card of p: cards[i] and vals[i] in card order, one search per group
 * of equivalent cards (sv_moves), each by null-window searches from the value of the previous
 * one.  Returns the number of cards (at most SV_MAX_MOVES), or -1 when the search passed the
 * solver's node limit. */
static int solver_values(SolverObject *self, const FpPos *p, int cards[SV_MAX_MOVES], int64_t vals[SV_MAX_MOVES])
{
    SvCtx *S = &self->ctx;
    uint64_t legal = fp_legal(p);
    int moves[SV_MAX_MOVES];
    uint64_t groups[SV_MAX_MOVES];
    int n = sv_moves(p, legal, -1, moves, groups);
    int64_t by_card[52];
    Py_BEGIN_ALLOW_THREADS
    for (int i = 0; i < n && !S->aborted; i++) {
        FpPos q = *p;
        fp_apply(&q, moves[i], legal);
        int64_t v = sv_solve(S, &q);
        for (uint64_t m = groups[i]; m; m &= m - 1)
            by_card[lo_card(m)] = v;
    }
    Py_END_ALLOW_THREADS
    if (S->aborted)
        return -1;
    int k = 0;
    for (uint64_t m = legal; m && k < SV_MAX_MOVES; m &= m - 1) {
        cards[k] = lo_card(m);
        vals[k++] = by_card[lo_card(m)];
    }
    return k;
}

/* Read a position the solver can take: one of a deal (gongzhu.search.fast.encode), whose bound
 * cards are exposed special cards and whose factors are the rules' (R10: 1, 2 or 4); the table's
 * keys rely on both.  With need_move, a deal not yet over. */
static int solver_pos(PyObject *blob, FpPos *p, int need_move)
{
    if (get_pos(blob, p) < 0)
        return -1;
    int ok = 1;
    for (int s = 0; s < 4; s++)
        ok = ok && !(p->restr[s] & ~(SV_SPECIALS & p->hand[s])) && p->factor[s] >= 1 && p->factor[s] <= 4;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "Solver: not a position of a deal (bound cards or exposure factors)");
        return -1;
    }
    if (need_move && fp_is_over(p)) {
        PyErr_SetString(PyExc_ValueError, "Solver: the deal is over, there is nothing to solve");
        return -1;
    }
    return 0;
}

/* Read (pos[, limit]) and start a call: 0, or -1 with an exception set. */
static int solver_args(SolverObject *self, PyObject *args, FpPos *p, int need_move)
{
    PyObject *blob;
    unsigned long long limit = 0;
    if (!PyArg_ParseTuple(args, "O|K", &blob, &limit))
        return -1;
    if (solver_pos(blob, p, need_move) < 0)
        return -1;
    return solver_enter(self, p, limit);
}

static PyObject *Solver_value(PyObject *op, PyObject *args)
{
    SolverObject *self = (SolverObject *)op;
    FpPos p;
    if (solver_args(self, args, &p, 0) < 0)
        return NULL;
    int64_t v;
    Py_BEGIN_ALLOW_THREADS
    v = fp_is_over(&p) ? sv_score(&self->ctx, &p) : sv_solve(&self->ctx, &p);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (self->ctx.aborted)
        Py_RETURN_NONE;
    return PyLong_FromLongLong((long long)v);
}

static PyObject *Solver_values(PyObject *op, PyObject *args)
{
    SolverObject *self = (SolverObject *)op;
    FpPos p;
    if (solver_args(self, args, &p, 1) < 0)
        return NULL;
    int cards[SV_MAX_MOVES];
    int64_t vals[SV_MAX_MOVES];
    int n = solver_values(self, &p, cards, vals);
    self->busy = 0;
    if (n < 0)
        Py_RETURN_NONE;
    PyObject *out = PyList_New(n);
    if (!out)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *item = Py_BuildValue("(iL)", cards[i], (long long)vals[i]);
        if (!item) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

/* A line of best play: at each step the value v of the position, then the first card (in the
 * search's order) whose position is proved to reach v by one null-window search. */
static PyObject *Solver_line(PyObject *op, PyObject *args)
{
    SolverObject *self = (SolverObject *)op;
    SvCtx *S = &self->ctx;
    FpPos p;
    if (solver_args(self, args, &p, 0) < 0)
        return NULL;
    uint8_t line[FP_MAX_PLAYS];
    int n = 0;
    Py_BEGIN_ALLOW_THREADS
    while (!fp_is_over(&p) && !S->aborted && n < FP_MAX_PLAYS) {
        int64_t v = sv_solve(S, &p);
        uint64_t legal = fp_legal(&p);
        int moves[SV_MAX_MOVES];
        int k = sv_moves(&p, legal, -1, moves, NULL);
        int maxing = S->w[(int)p.turn] > 0;
        int chosen = moves[k - 1]; /* the last is best if no other is (never needed) */
        for (int i = 0; i < k - 1 && !S->aborted; i++) {
            FpPos q = p;
            fp_apply(&q, moves[i], legal);
            int ok = maxing ? sv_search(S, &q, v - 1, v, NULL) >= v : sv_search(S, &q, v, v + 1, NULL) <= v;
            if (ok) {
                chosen = moves[i];
                break;
            }
        }
        line[n++] = (uint8_t)chosen;
        fp_apply(&p, chosen, legal);
    }
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (S->aborted)
        Py_RETURN_NONE;
    PyObject *out = PyList_New(n);
    if (!out)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *c = PyLong_FromLong(line[i]);
        if (!c) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, c);
    }
    return out;
}

static PyObject *Solver_clear(PyObject *op, PyObject *noargs)
{
    (void)noargs;
    SolverObject *self = (SolverObject *)op;
    if (solver_enter(self, NULL, 0) < 0)
        return NULL;
    if (self->ctx.used)
        sv_new_generation(&self->ctx);
    self->ctx.used = 0;
    self->ctx.nodes = 0;
    self->busy = 0;
    Py_RETURN_NONE;
}

static PyObject *Solver_get_nodes(PyObject *op, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(((SolverObject *)op)->ctx.nodes);
}

static PyObject *Solver_get_weights(PyObject *op, void *closure)
{
    (void)closure;
    const int64_t *w = ((SolverObject *)op)->ctx.w;
    return Py_BuildValue("(LLLL)", (long long)w[0], (long long)w[1], (long long)w[2], (long long)w[3]);
}

static PyMethodDef Solver_methods[] = {
    {"value", Solver_value, METH_VARARGS,
     "value(pos, limit=0) -> the exact value of the position under best play (sum of w[s] *\n"
     "raw[s]); None if the search passed `limit` positions (0: no limit)"},
    {"values", Solver_values, METH_VARARGS,
     "values(pos, limit=0) -> [(card, value), ...]: the exact value after each legal card, in\n"
     "card order; None if the search passed `limit` positions"},
    {"line", Solver_line, METH_VARARGS,
     "line(pos, limit=0) -> the cards of a line of best play from pos to the end of the deal;\n"
     "None if a search on the way passed `limit` positions"},
    {"clear", Solver_clear, METH_NOARGS, "clear() -> empty the transposition table, zero the node count"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Solver_getset[] = {
    {"nodes", Solver_get_nodes, NULL, "positions searched since construction or clear()", NULL},
    {"weights", Solver_get_weights, NULL, "the objective's weights (N, E, S, W)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(Solver_doc,
             "Solver(weights, table_bits=20)\n\n"
             "The exact open-card solver of one-deck positions: the value of sum w[s] * raw[s]\n"
             "at the end of the deal when the seats with w[s] > 0 maximise it and the others\n"
             "minimise it; a transposition table of up to 2**table_bits entries (64 bytes each,\n"
             "allocated at once, used as it fills) kept between calls.  One call at a time; the\n"
             "GIL is released while it searches.");

static PyTypeObject SolverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gongzhu.rules._fastplay.Solver",
    .tp_basicsize = sizeof(SolverObject),
    .tp_itemsize = 0,
    .tp_dealloc = Solver_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = Solver_doc,
    .tp_methods = Solver_methods,
    .tp_getset = Solver_getset,
    .tp_new = Solver_new,
};
