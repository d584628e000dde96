/*
 * The batched environment (gongzhu.env.batch): N one-deck deals stepped together in C, each the
 * first deal of a match, in the exposure phase (R4) or the play phase (R5), their observations,
 * action masks and seats to act written into caller-provided arrays.  Included by _fastplay.c
 * (after the one-deck rules: FpPos, fp_legal, fp_apply_rec, fp_raw_scores, the xoshiro streams),
 * so the extension stays one translation unit; it adds the type Batch and the exception
 * IllegalActionError to gongzhu.rules._fastplay.
 *
 * The rules are written once in Python; this is their fast copy, held to the reference play by
 * play by tests/test_env_batch.py:
 *
 * - dealing (R3): Fisher-Yates from a xoshiro256++ stream, card k, k+4, k+8 ... to the k-th
 *   receiver in dealing order from North (the first deal of a match), each hand kept in the
 *   order its cards were received (its first card decides 首明, R4.4);
 * - the exposure phase (R4.4): the seats still to declare decide in the order N, E, S, W, each
 *   building its declaration with exposure actions and making it with ACTION_DONE, as
 *   gongzhu.env.aec does; after the fourth declaration 逼明 exposes the fourth special card
 *   where it applies; under exposure=all / all_but_sheep the engine's exposures are applied at
 *   the deal and play starts at once;
 * - play (R5) and scoring (R6) are the one-deck core above (fp_legal, fp_apply_rec,
 *   fp_raw_scores); the first lead follows first_lead (R5.1);
 * - the observation is gongzhu.players.features.encode of the seat to act's view
 *   (gongzhu.players.observation.observe): the layout (each block's start) and the options block
 *   come from Python, so the layout is written once there.
 *
 * Randomness: deal j of slot i (j = 0 for the deal dealt at reset, then one more per finished
 * deal of that slot) is shuffled from its own stream, a function of (seed, i, j) only, so results
 * do not depend on how the slots are split over threads.
 *
 * Card index = suit * 13 + (rank - 2), suits S H C D = 0 1 2 3; seats N E S W = 0 1 2 3.
 */
#ifndef GONGZHU_FASTENV_H
#define GONGZHU_FASTENV_H

#define ENV_N_ACTIONS 65     /* gongzhu.players.features.N_ACTIONS */
#define ENV_ACTION_DONE 52   /* make the declaration (or play) built so far */
#define ENV_ACTION_EXPOSE 53 /* 53 + 3 * special + kind: add one exposure to the declaration */
#define ENV_MAX_THREADS 256

/* Exposure kinds: the three a player may declare, in the order of the exposure actions
 * (features.DECLARABLE_KINDS), then 逼明's automatic one (R4.4). */
enum { KIND_SHOWN = 0, KIND_FIRST = 1, KIND_HIDDEN = 2, KIND_AUTO = 3 };
#define FIRST_KIND_BITS ((1u << KIND_FIRST) | (1u << (3 + KIND_FIRST)) | (1u << (6 + KIND_FIRST)) | \
                         (1u << (9 + KIND_FIRST)))

enum { ENV_EXPOSE = 0, ENV_PLAY = 1 };

/* The blocks of the observation one deck writes (features.BLOCKS, in this order), then the
 * options block (the rest of the vector, constant for a Batch) and the vector's length. */
enum {
    OB_HAND, OB_PLAYED, OB_TRICK, OB_TAKEN, OB_EXPOSED, OB_UNSEEN, OB_LEGAL, OB_PHASE,
    OB_POSITION, OB_LED, OB_TRICKS_DONE, OB_CARDS_LEFT, OB_VOIDS, OB_HIDDEN, OB_SUITS_LED,
    OB_MUST_C2, OB_DECLARED, OB_FIRST_CARD, OB_OPTIONS, OB_SIZE, OB_N_LAYOUT
};
static const int ENV_BLOCK_SIZE[OB_OPTIONS] = {52, 208, 208, 208, 208, 52, 52, 2, 4,
                                               4,  1,   4,   16,  4,   4,  1,  12, 4};

/* Everything a Batch's deals share: the options, as plain ints from Python. */
typedef struct {
    FpPos base;          /* the options of FpPos (direction R1, R4.3 tournament rule, discard colour
                          * R5.2, heart table R2, self-catch R6.1); hands etc. are set per deal */
    int first_lead;      /* 0 club2_must, 1 club2_any, 2 spade3_any (R5.1) */
    unsigned declarable; /* bit per kind a player may declare (R4.4); 0: nobody declares */
    unsigned restricted; /* bit per kind (shown first hidden auto) bound by R4.3 */
    int32_t factor[4];   /* value factor of one exposed card, by kind (R10, Options.exposure_factor) */
    int auto_fourth;     /* 逼明 applies (R4.4, Options.auto_fourth_applies) */
    unsigned mandatory;  /* bit per special card (♠Q ♦J ♣10 ♥A) the engine exposes, kind shown (R4.4) */
    int at[OB_N_LAYOUT]; /* start of each block; at[OB_SIZE]: the vector's length */
    float *tail;         /* the options block: at[OB_SIZE] - at[OB_OPTIONS] values */
} EnvRules;

/* One deal of a Batch. */
typedef struct {
    FpPos pos;            /* the play state and the scoring fields (R4.2 factors, R6.1 dealt_to) */
    uint64_t played[4];   /* cards each seat has played (finished tricks and the trick in progress) */
    uint64_t exposed[4];  /* cards each seat has exposed, every kind (R4) */
    uint64_t hidden[4];   /* ... of which hidden (暗卖): seen by the others once played (R4.4) */
    uint64_t legal_cards; /* legal actions 0..51 (play phase: the legal cards) */
    uint64_t number;      /* j: this is deal j of its slot */
    uint16_t legal_more;  /* legal actions 52..64: bit a - 52 */
    uint16_t building;    /* the declaration being built: bit 3 * special + kind (R4.4) */
    uint8_t dealt[4][13]; /* each hand as dealt, in the order received (R3) */
    uint8_t voids[4];     /* bit per suit the seat is known to hold no card of (R5.2) */
    uint8_t declared;     /* bit per seat that has made its declaration */
    uint8_t phase;        /* ENV_EXPOSE / ENV_PLAY */
    int8_t to_act;        /* the seat to act */
} EnvSlot;

/* The stream of deal j of slot i: a function of (seed, i, j) only. */
static void env_stream(FpRng *r, uint64_t seed, uint64_t slot, uint64_t j)
{
    rng_seed(r, seed ^ mix64(slot * 0x9E3779B97F4A7C15ULL + 0xD1B54A32D192ED03ULL), j);
}

static inline void env_expose(const EnvRules *R, EnvSlot *d, int seat, int special, int kind)
{
    uint64_t bit = 1ULL << SPECIAL_CARD[special];
    d->exposed[seat] |= bit;
    if (kind == KIND_HIDDEN)
        d->hidden[seat] |= bit;
    d->pos.factor[special] = R->factor[kind]; /* R4.2, R10 */
    if (R->restricted >> kind & 1)
        d->pos.restr[seat] |= bit; /* R4.3 */
}

/* The first lead of the first deal of a match (R5.1): the holder of ♣2 (♠3 under spade3_any). */
static void env_start_play(const EnvRules *R, EnvSlot *d)
{
    FpPos *p = &d->pos;
    int target = R->first_lead == 2 ? CARD_S3 : CARD_C2;
    int leader = 0;
    while (!(p->hand[leader] >> target & 1))
        leader++;
    p->leader = p->turn = (int8_t)leader;
    p->must_c2 = R->first_lead == 0;
    p->n_trick = 0;
    p->led = -1;
    p->offender = -1;
    p->suits_led = 0;
    d->phase = ENV_PLAY;
}

/* Who acts now and what it may do (features.legal_actions of its observation). */
static void env_refresh(const EnvRules *R, EnvSlot *d)
{
    const FpPos *p = &d->pos;
    if (d->phase == ENV_PLAY) {
        d->to_act = p->turn;
        d->legal_cards = fp_legal(p);
        d->legal_more = 0; /* one deck: a card's action makes the play */
        return;
    }
    /* R4.4: the seats still to declare, in the order N E S W; each may add any special card it
     * holds and has not added yet, in a kind the rule offers (first only for its first dealt
     * card), then make its declaration (ACTION_DONE), possibly empty. */
    int seat = __builtin_ctz(~(unsigned)d->declared & 15u);
    unsigned more = 1u;
    for (int k = 0; k < 4; k++) {
        int c = SPECIAL_CARD[k];
        if (!(p->hand[seat] >> c & 1) || (d->building >> (3 * k) & 7u))
            continue;
        for (int kind = 0; kind < 3; kind++) {
            if (!(R->declarable >> kind & 1))
                continue;
            if (kind == KIND_FIRST && (d->dealt[seat][0] != c || (d->building & FIRST_KIND_BITS)))
                continue;
            more |= 1u << (1 + 3 * k + kind);
        }
    }
    d->to_act = (int8_t)seat;
    d->legal_cards = 0;
    d->legal_more = (uint16_t)more;
}

/* Deal j of slot i (R3), the engine's exposures (R4.4), and the first position. */
static void env_deal(const EnvRules *R, EnvSlot *d, uint64_t seed, uint64_t slot, uint64_t j)
{
    FpRng rng;
    uint8_t deck[52];
    env_stream(&rng, seed, slot, j);
    for (int i = 0; i < 52; i++)
        deck[i] = (uint8_t)i;
    for (int i = 51; i > 0; i--) { /* Fisher-Yates (R3) */
        int k = (int)rng_bounded(&rng, (uint32_t)(i + 1));
        uint8_t t = deck[i];
        deck[i] = deck[k];
        deck[k] = t;
    }
    memset(d, 0, sizeof *d);
    d->number = j;
    FpPos *p = &d->pos;
    *p = R->base;
    int seat = 0; /* North receives the first card; then the next seat in play direction (R1) */
    for (int k = 0; k < 4; k++, seat = (seat + p->step) & 3) {
        uint64_t h = 0;
        for (int n = 0; n < 13; n++) {
            d->dealt[seat][n] = deck[k + 4 * n];
            h |= 1ULL << deck[k + 4 * n];
        }
        p->hand[seat] = h;
    }
    for (int k = 0; k < 4; k++) {
        int holder = 0;
        while (!(p->hand[holder] >> SPECIAL_CARD[k] & 1))
            holder++;
        p->dealt_to[k] = (int8_t)holder;
        p->factor[k] = 1;
    }
    p->leader = p->turn = 0;
    p->led = -1;
    p->offender = -1;
    for (int k = 0; k < 4; k++) /* exposure=all / all_but_sheep (R4.4) */
        if (R->mandatory >> k & 1)
            env_expose(R, d, p->dealt_to[k], k, KIND_SHOWN);
    if (R->declarable)
        d->phase = ENV_EXPOSE;
    else
        env_start_play(R, d);
    env_refresh(R, d);
}

/* Whether action a is legal in slot d now. */
static inline int env_is_legal(const EnvSlot *d, int64_t a)
{
    if (a < 0 || a >= ENV_N_ACTIONS)
        return 0;
    if (a < 52)
        return (int)(d->legal_cards >> a & 1);
    return d->legal_more >> (a - 52) & 1;
}

/* Take legal action a in slot d.  Returns 1 when it ended the deal: raw (R6) and the takers of
 * the pig and the sheep (for R7) are written, and the slot still holds the finished deal. */
static int env_act(const EnvRules *R, EnvSlot *d, int a, int64_t raw[4], int8_t takers[2])
{
    FpPos *p = &d->pos;
    if (d->phase == ENV_EXPOSE) {
        int seat = d->to_act;
        if (a != ENV_ACTION_DONE) {
            d->building |= (uint16_t)(1u << (a - ENV_ACTION_EXPOSE));
            env_refresh(R, d);
            return 0;
        }
        for (unsigned m = d->building; m; m &= m - 1) {
            int b = __builtin_ctz(m);
            env_expose(R, d, seat, b / 3, b % 3);
        }
        d->building = 0;
        d->declared |= (uint8_t)(1u << seat);
        if (d->declared == 15u) {
            if (R->auto_fourth) { /* 逼明: three special cards exposed, the fourth follows (R4.4) */
                uint64_t all = d->exposed[0] | d->exposed[1] | d->exposed[2] | d->exposed[3];
                unsigned shown = 0;
                for (int k = 0; k < 4; k++)
                    if (all >> SPECIAL_CARD[k] & 1)
                        shown |= 1u << k;
                if (__builtin_popcount(shown) == 3) {
                    int k = __builtin_ctz(~shown & 15u);
                    env_expose(R, d, p->dealt_to[k], k, KIND_AUTO);
                }
            }
            env_start_play(R, d);
        }
        env_refresh(R, d);
        return 0;
    }
    int s = p->turn;
    if (p->n_trick > 0) { /* a seat that does not follow is void in the led suit (R5.2) */
        int led = p->led, u = a / 13;
        if (u != led) {
            d->voids[s] |= (uint8_t)(1u << led);
            if (p->discard_color == COLOR_ENFORCE && u != (led ^ 2))
                d->voids[s] |= (uint8_t)(1u << (led ^ 2)); /* ... and in its colour */
        }
    }
    d->played[s] |= 1ULL << a;
    fp_apply(p, a, d->legal_cards);
    if (fp_is_over(p)) {
        fp_raw_scores(p, raw);
        takers[0] = takers[1] = -1;
        for (int t = 0; t < 4; t++) {
            if (p->captured[t] >> CARD_QS & 1)
                takers[0] = (int8_t)t;
            if (p->captured[t] >> CARD_JD & 1)
                takers[1] = (int8_t)t;
        }
        return 1;
    }
    env_refresh(R, d);
    return 0;
}

static inline void env_set_bits(float *v, uint64_t m)
{
    for (; m; m &= m - 1)
        v[__builtin_ctzll(m)] = 1.0f;
}

/* The seat to act's observation (features.encode of observe(deal, seat), with the declaration
 * being built).  Seats are relative to the observer in play order (R1). */
static void env_observe(const EnvRules *R, const EnvSlot *d, float *v)
{
    const FpPos *p = &d->pos;
    const int *at = R->at;
    int o = d->to_act, step = p->step, play = d->phase == ENV_PLAY;
    memset(v, 0, sizeof(float) * (size_t)at[OB_SIZE]);
    uint64_t played = d->played[0] | d->played[1] | d->played[2] | d->played[3];
    uint64_t hand = p->hand[o];
    env_set_bits(v + at[OB_HAND], hand);
    for (int s = 0; s < 4; s++) {
        int r = ((s - o) * step) & 3;
        env_set_bits(v + at[OB_PLAYED] + 52 * r, d->played[s]);
        env_set_bits(v + at[OB_TAKEN] + 52 * r, p->captured[s]); /* the taker's point cards */
        uint64_t seen = d->exposed[s];
        if (s != o) { /* another seat's hidden exposure: a count until the card is played (R4.4) */
            uint64_t unseen = d->hidden[s] & ~played;
            seen &= ~unseen;
            v[at[OB_HIDDEN] + r] = (float)__builtin_popcountll(unseen) / 4.0f;
        }
        env_set_bits(v + at[OB_EXPOSED] + 52 * r, seen);
        v[at[OB_CARDS_LEFT] + r] = (float)((double)__builtin_popcountll(p->hand[s]) / 13.0);
        for (int u = 0; u < 4; u++)
            if (d->voids[s] >> u & 1)
                v[at[OB_VOIDS] + 4 * r + u] = 1.0f;
    }
    env_set_bits(v + at[OB_UNSEEN], ALL_CARDS_MASK & ~hand & ~played);
    v[at[OB_PHASE] + play] = 1.0f;
    if (play) {
        for (int i = 0; i < p->n_trick; i++) {
            int s = (p->leader + i * step) & 3;
            v[at[OB_TRICK] + 52 * (((s - o) * step) & 3) + p->trick_card[i]] = 1.0f;
        }
        env_set_bits(v + at[OB_LEGAL], d->legal_cards);
        v[at[OB_POSITION] + p->n_trick] = 1.0f;
        if (p->n_trick)
            v[at[OB_LED] + p->led] = 1.0f;
        if (p->must_c2) /* R5.1 club2_must: the first lead, still to be made */
            v[at[OB_MUST_C2]] = 1.0f;
    }
    int tricks = (__builtin_popcountll(played) - (play ? p->n_trick : 0)) / 4;
    v[at[OB_TRICKS_DONE]] = (float)((double)tricks / 13.0);
    for (int u = 0; u < 4; u++)
        if (p->suits_led >> u & 1)
            v[at[OB_SUITS_LED] + u] = 1.0f;
    for (unsigned m = d->building; m; m &= m - 1)
        v[at[OB_DECLARED] + __builtin_ctz(m)] = 1.0f;
    for (int k = 0; k < 4; k++)
        if (d->dealt[o][0] == SPECIAL_CARD[k])
            v[at[OB_FIRST_CARD] + k] = 1.0f;
    memcpy(v + at[OB_OPTIONS], R->tail, sizeof(float) * (size_t)(at[OB_SIZE] - at[OB_OPTIONS]));
}

static void env_mask(const EnvSlot *d, int8_t *m)
{
    memset(m, 0, ENV_N_ACTIONS);
    for (uint64_t x = d->legal_cards; x; x &= x - 1)
        m[__builtin_ctzll(x)] = 1;
    for (unsigned x = d->legal_more; x; x &= x - 1)
        m[52 + __builtin_ctz(x)] = 1;
}

/* ------------------------------------------------------------------ the Batch type */

/* The arrays a Batch writes, in the constructor's order. */
enum { OUT_OBS, OUT_MASK, OUT_TO_ACT, OUT_DONE, OUT_RAW, OUT_TAKERS, OUT_N };

typedef struct {
    PyObject_HEAD
    EnvRules rules;
    EnvSlot *slots;
    Py_ssize_t n;
    int threads;
    int busy;          /* a step or reset is running (the GIL released) */
    int n_out;         /* buffers held in out[] */
    uint64_t seed;
    uint64_t finished; /* deals finished since the last reset */
    Py_buffer out[OUT_N];
} BatchObject;

static PyTypeObject BatchType;
static PyObject *EnvIllegalActionError;

/*
 * One step (or reset) over the threads.  The deals are handed out in chunks from a shared
 * counter, so a thread that gets less of a busy machine's time does less of the work, and the
 * caller waits for the deals, not for the threads: a worker thread that starts late finds nothing
 * left and leaves (the threads are detached; the run is freed by whoever leaves it last).  Each
 * deal depends only on its own state and stream, so which thread steps it changes nothing.
 */
typedef struct {
    BatchObject *b;
    const int64_t *actions; /* NULL: deal deal 0 into every slot (reset) */
    int observe;
    Py_ssize_t n, chunk;
    Py_ssize_t next; /* the next chunk's first deal (atomic) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    Py_ssize_t stepped; /* deals stepped (under mu) */
    int64_t ended;      /* deals that ended (under mu) */
    int users;          /* the caller and the worker threads still in the run (under mu) */
} EnvRun;

/* Step deals start..stop-1; returns how many ended. */
static int64_t env_slots(const EnvRun *run, Py_ssize_t start, Py_ssize_t stop)
{
    BatchObject *b = run->b;
    const EnvRules *R = &b->rules;
    float *obs = (float *)b->out[OUT_OBS].buf;
    int8_t *mask = (int8_t *)b->out[OUT_MASK].buf;
    int8_t *to_act = (int8_t *)b->out[OUT_TO_ACT].buf;
    uint8_t *done = (uint8_t *)b->out[OUT_DONE].buf;
    int64_t *raw = (int64_t *)b->out[OUT_RAW].buf;
    int8_t *takers = (int8_t *)b->out[OUT_TAKERS].buf;
    size_t size = (size_t)R->at[OB_SIZE];
    int64_t n_ended = 0;
    for (Py_ssize_t i = start; i < stop; i++) {
        EnvSlot *d = &b->slots[i];
        int64_t *r = raw + 4 * i;
        int8_t *t = takers + 2 * i;
        int ended = 0;
        r[0] = r[1] = r[2] = r[3] = 0;
        t[0] = t[1] = -1;
        if (!run->actions) {
            env_deal(R, d, b->seed, (uint64_t)i, 0);
        } else if (env_act(R, d, (int)run->actions[i], r, t)) {
            ended = 1; /* auto-reset: the slot's next deal, whose first observation is written */
            env_deal(R, d, b->seed, (uint64_t)i, d->number + 1);
        }
        done[i] = (uint8_t)ended;
        n_ended += ended;
        to_act[i] = d->to_act;
        env_mask(d, mask + (size_t)ENV_N_ACTIONS * (size_t)i);
        if (run->observe)
            env_observe(R, d, obs + size * (size_t)i);
    }
    return n_ended;
}

/* Step chunks until none is left. */
static void env_take(EnvRun *run)
{
    for (;;) {
        Py_ssize_t start = __atomic_fetch_add(&run->next, run->chunk, __ATOMIC_RELAXED);
        if (start >= run->n)
            return;
        Py_ssize_t stop = start + run->chunk < run->n ? start + run->chunk : run->n;
        int64_t ended = env_slots(run, start, stop);
        pthread_mutex_lock(&run->mu);
        run->stepped += stop - start;
        run->ended += ended;
        if (run->stepped == run->n)
            pthread_cond_signal(&run->cv);
        pthread_mutex_unlock(&run->mu);
    }
}

static void env_leave(EnvRun *run)
{
    pthread_mutex_lock(&run->mu);
    int last = --run->users == 0;
    pthread_mutex_unlock(&run->mu);
    if (last) {
        pthread_cond_destroy(&run->cv);
        pthread_mutex_destroy(&run->mu);
        PyMem_RawFree(run);
    }
}

static void *env_worker(void *arg)
{
    env_take((EnvRun *)arg);
    env_leave((EnvRun *)arg);
    return NULL;
}

/* Run a step (actions) or a reset (NULL) over the threads, the GIL released.  Returns the number
 * of deals that ended, or -1 with an exception set. */
static int64_t env_run(BatchObject *b, const int64_t *actions, int observe)
{
    EnvRun *run = PyMem_RawCalloc(1, sizeof *run);
    if (!run) {
        PyErr_NoMemory();
        return -1;
    }
    int threads = b->threads;
    run->b = b;
    run->actions = actions;
    run->observe = observe;
    run->n = b->n;
    run->chunk = b->n / (8 * threads); /* about 8 chunks a thread */
    run->chunk = run->chunk < 4 ? 4 : run->chunk > 64 ? 64 : run->chunk;
    Py_ssize_t chunks = (run->n + run->chunk - 1) / run->chunk;
    if (threads > chunks)
        threads = (int)chunks;
    if (pthread_mutex_init(&run->mu, NULL) != 0) {
        PyMem_RawFree(run);
        PyErr_SetString(PyExc_RuntimeError, "Batch: could not make a mutex");
        return -1;
    }
    if (pthread_cond_init(&run->cv, NULL) != 0) {
        pthread_mutex_destroy(&run->mu);
        PyMem_RawFree(run);
        PyErr_SetString(PyExc_RuntimeError, "Batch: could not make a condition variable");
        return -1;
    }
    run->users = threads;
    int64_t ended;
    b->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    pthread_attr_t attr;
    int detached = threads > 1 && pthread_attr_init(&attr) == 0;
    if (detached && pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) != 0) {
        pthread_attr_destroy(&attr);
        detached = 0;
    }
    for (int t = 1; t < threads; t++) {
        pthread_t tid;
        if (!detached || pthread_create(&tid, &attr, env_worker, run) != 0) {
            pthread_mutex_lock(&run->mu); /* no thread: the chunks go to the others */
            run->users--;
            pthread_mutex_unlock(&run->mu);
        }
    }
    if (detached)
        pthread_attr_destroy(&attr);
    env_take(run);
    pthread_mutex_lock(&run->mu);
    while (run->stepped < run->n)
        pthread_cond_wait(&run->cv, &run->mu);
    ended = run->ended;
    pthread_mutex_unlock(&run->mu);
    env_leave(run);
    Py_END_ALLOW_THREADS
    b->busy = 0;
    return ended;
}

static int batch_idle(BatchObject *b)
{
    if (b->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Batch: a step or reset is running in another thread (one at a time)");
        return -1;
    }
    return 0;
}

/* The format code of a buffer without its byte-order prefix (native order only), or 0. */
static char env_format(const Py_buffer *v)
{
    const char *f = v->format ? v->format : "B";
    if (*f == '@' || *f == '=')
        f++;
#if PY_LITTLE_ENDIAN
    else if (*f == '<')
        f++;
#endif
    return f[0] && !f[1] ? f[0] : 0;
}

/* Get a C-contiguous buffer of `codes` items of `itemsize` bytes, shape (n,) when width is 0,
 * else (n, width). */
static int env_buffer(PyObject *obj, Py_buffer *view, int writable, const char *name,
                      const char *codes, Py_ssize_t itemsize, const char *dtype, Py_ssize_t n,
                      Py_ssize_t width)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "Batch: %s must be a%s C-contiguous %s array, not %.100s",
                     name, writable ? " writable" : "", dtype, Py_TYPE(obj)->tp_name);
        return -1;
    }
    char f = env_format(view);
    int ok = f && strchr(codes, f) && view->itemsize == itemsize;
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "Batch: %s must be a %s array (format %s, not %s)", name,
                     dtype, codes, view->format ? view->format : "B");
        PyBuffer_Release(view);
        return -1;
    }
    ok = width ? view->ndim == 2 && view->shape[0] == n && view->shape[1] == width
               : view->ndim == 1 && view->shape[0] == n;
    if (!ok) {
        if (width)
            PyErr_Format(PyExc_ValueError, "Batch: %s must have shape (%zd, %zd)", name, n, width);
        else
            PyErr_Format(PyExc_ValueError, "Batch: %s must have shape (%zd,)", name, n);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* The options tuple: (clockwise, exposed_discard_before_suit_led, discard_color, heart_book,
 * self_catch, first_lead, declarable, restricted, (factor shown, first, hidden, auto),
 * auto_fourth, mandatory). */
static int env_rules(PyObject *params, PyObject *layout, PyObject *tail_obj, EnvRules *R)
{
    int clockwise, edbsl, dcolor, book, selfc, first_lead, declarable, restricted, auto_fourth;
    int mandatory, f[4];
    if (!PyTuple_Check(params) ||
        !PyArg_ParseTuple(params, "ppipp" "iii(iiii)" "pi:Batch options", &clockwise, &edbsl,
                          &dcolor, &book, &selfc, &first_lead, &declarable, &restricted, &f[0],
                          &f[1], &f[2], &f[3], &auto_fourth, &mandatory)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "Batch: options must be a tuple");
        return -1;
    }
    int ok = dcolor >= COLOR_OFF && dcolor <= COLOR_PENALTY && first_lead >= 0 && first_lead <= 2 &&
             declarable >= 0 && declarable <= 7 && restricted >= 0 && restricted <= 15 &&
             mandatory >= 0 && mandatory <= 15 && !(declarable && mandatory);
    for (int k = 0; k < 4; k++)
        ok = ok && f[k] >= 1 && f[k] <= 64;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "Batch: options out of range");
        return -1;
    }
    memset(R, 0, sizeof *R);
    R->base.magic = FP_MAGIC;
    R->base.step = clockwise ? 1 : 3;
    R->base.edbsl = (uint8_t)edbsl;
    R->base.discard_color = (uint8_t)dcolor;
    R->base.heart_book = (uint8_t)book;
    R->base.self_catch = (uint8_t)selfc;
    R->first_lead = first_lead;
    R->declarable = (unsigned)declarable;
    R->restricted = (unsigned)restricted;
    for (int k = 0; k < 4; k++)
        R->factor[k] = f[k];
    R->auto_fourth = auto_fourth;
    R->mandatory = (unsigned)mandatory;

    PyObject *seq = PySequence_Fast(layout, "Batch: layout must be a sequence of block starts");
    if (!seq)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != OB_N_LAYOUT) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "Batch: layout holds %d block starts and the length",
                     OB_N_LAYOUT);
        return -1;
    }
    for (int k = 0; k < OB_N_LAYOUT; k++) {
        long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, k));
        if (x == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        R->at[k] = x < 0 || x > 1000000 ? -1 : (int)x;
    }
    Py_DECREF(seq);
    ok = R->at[OB_OPTIONS] >= 0 && R->at[OB_SIZE] >= R->at[OB_OPTIONS];
    for (int k = 0; k < OB_OPTIONS && ok; k++)
        ok = R->at[k] >= 0 && R->at[k] + ENV_BLOCK_SIZE[k] <= R->at[OB_OPTIONS];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "Batch: the layout's blocks do not fit the vector");
        return -1;
    }
    Py_ssize_t n_tail = R->at[OB_SIZE] - R->at[OB_OPTIONS];
    Py_buffer tv;
    if (env_buffer(tail_obj, &tv, 0, "options_block", "f", 4, "float32", n_tail, 0) < 0)
        return -1;
    R->tail = PyMem_Malloc(sizeof(float) * (size_t)(n_tail ? n_tail : 1));
    if (!R->tail) {
        PyBuffer_Release(&tv);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(R->tail, tv.buf, sizeof(float) * (size_t)n_tail);
    PyBuffer_Release(&tv);
    return 0;
}

static void Batch_dealloc(PyObject *self)
{
    BatchObject *b = (BatchObject *)self;
    for (int k = 0; k < b->n_out; k++)
        PyBuffer_Release(&b->out[k]);
    PyMem_Free(b->slots);
    PyMem_Free(b->rules.tail);
    Py_TYPE(self)->tp_free(self);
}

static int env_threads(PyObject *obj, int *out)
{
    long t = PyLong_AsLong(obj);
    if (t == -1 && PyErr_Occurred())
        return -1;
    if (t < 1 || t > ENV_MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "Batch: threads must lie in 1..%d, not %ld", ENV_MAX_THREADS, t);
        return -1;
    }
    *out = (int)t;
    return 0;
}

static PyObject *Batch_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"n", "seed", "threads", "options", "layout", "options_block",
                             "observations", "action_masks", "to_act", "dones", "raw", "takers",
                             NULL};
    Py_ssize_t n;
    unsigned long long seed;
    PyObject *threads_obj, *params, *layout, *tail, *arrays[OUT_N];
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "nKOOOOOOOOOO:Batch", kwlist, &n, &seed,
                                     &threads_obj, &params, &layout, &tail, &arrays[OUT_OBS],
                                     &arrays[OUT_MASK], &arrays[OUT_TO_ACT], &arrays[OUT_DONE],
                                     &arrays[OUT_RAW], &arrays[OUT_TAKERS]))
        return NULL;
    if (n < 1 || n > ((Py_ssize_t)1 << 24)) {
        PyErr_SetString(PyExc_ValueError, "Batch: n (the number of deals) must lie in 1..2**24");
        return NULL;
    }
    int threads;
    if (env_threads(threads_obj, &threads) < 0)
        return NULL;
    BatchObject *b = (BatchObject *)type->tp_alloc(type, 0);
    if (!b)
        return NULL;
    b->n = n;
    b->threads = threads;
    b->seed = seed;
    if (env_rules(params, layout, tail, &b->rules) < 0)
        goto fail;
    static const char *names[OUT_N] = {"observations", "action_masks", "to_act", "dones", "raw",
                                       "takers"};
    static const char *codes[OUT_N] = {"f", "b", "b", "?", "lq", "b"};
    static const char *dtypes[OUT_N] = {"float32", "int8", "int8", "bool", "int64", "int8"};
    const Py_ssize_t sizes[OUT_N] = {4, 1, 1, 1, 8, 1};
    const Py_ssize_t widths[OUT_N] = {b->rules.at[OB_SIZE], ENV_N_ACTIONS, 0, 0, 4, 2};
    for (int k = 0; k < OUT_N; k++) {
        if (env_buffer(arrays[k], &b->out[k], 1, names[k], codes[k], sizes[k], dtypes[k], n,
                       widths[k]) < 0)
            goto fail;
        b->n_out = k + 1;
    }
    b->slots = PyMem_Calloc((size_t)n, sizeof(EnvSlot));
    if (!b->slots) {
        PyErr_NoMemory();
        goto fail;
    }
    if (env_run(b, NULL, 1) < 0)
        goto fail;
    return (PyObject *)b;
fail:
    Py_DECREF(b);
    return NULL;
}

static PyObject *env_legal_list(const EnvSlot *d)
{
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    for (int a = 0; a < ENV_N_ACTIONS; a++) {
        if (!env_is_legal(d, a))
            continue;
        PyObject *x = PyLong_FromLong(a);
        if (!x || PyList_Append(out, x) < 0) {
            Py_XDECREF(x);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(x);
    }
    return out;
}

/* Raise IllegalActionError for action a of deal i, with attributes deal, seat, action, legal. */
static void env_refuse(BatchObject *b, Py_ssize_t i, int64_t a)
{
    static const char SEATS[] = "NESW";
    const EnvSlot *d = &b->slots[i];
    PyObject *legal = env_legal_list(d);
    if (!legal)
        return;
    PyObject *msg = PyUnicode_FromFormat(
        "deal %zd: %c (seat %d) may not take action %lld now: the legal actions are %R; "
        "nothing was changed",
        i, SEATS[(int)d->to_act], (int)d->to_act, (long long)a, legal);
    PyObject *exc = msg ? PyObject_CallOneArg(EnvIllegalActionError, msg) : NULL;
    Py_XDECREF(msg);
    if (!exc) {
        Py_DECREF(legal);
        return;
    }
    PyObject *deal = PyLong_FromSsize_t(i), *seat = PyLong_FromLong(d->to_act);
    PyObject *action = PyLong_FromLongLong((long long)a);
    if (deal && seat && action && PyObject_SetAttrString(exc, "deal", deal) == 0 &&
        PyObject_SetAttrString(exc, "seat", seat) == 0 &&
        PyObject_SetAttrString(exc, "action", action) == 0 &&
        PyObject_SetAttrString(exc, "legal", legal) == 0)
        PyErr_SetObject(EnvIllegalActionError, exc);
    Py_XDECREF(deal);
    Py_XDECREF(seat);
    Py_XDECREF(action);
    Py_DECREF(legal);
    Py_DECREF(exc);
}

static PyObject *Batch_step(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"actions", "observe", NULL};
    BatchObject *b = (BatchObject *)self;
    PyObject *actions_obj;
    int observe = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|p:step", kwlist, &actions_obj, &observe))
        return NULL;
    if (batch_idle(b) < 0)
        return NULL;
    Py_buffer av;
    if (env_buffer(actions_obj, &av, 0, "actions", "lq", 8, "int64", b->n, 0) < 0)
        return NULL;
    const int64_t *actions = (const int64_t *)av.buf;
    for (Py_ssize_t i = 0; i < b->n; i++) { /* every action first: a refusal changes nothing */
        if (!env_is_legal(&b->slots[i], actions[i])) {
            env_refuse(b, i, actions[i]);
            PyBuffer_Release(&av);
            return NULL;
        }
    }
    int64_t ended = env_run(b, actions, observe);
    PyBuffer_Release(&av);
    if (ended < 0)
        return NULL;
    b->finished += (uint64_t)ended;
    return PyLong_FromLongLong((long long)ended);
}

static PyObject *Batch_reset(PyObject *self, PyObject *args)
{
    BatchObject *b = (BatchObject *)self;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "K:reset", &seed))
        return NULL;
    if (batch_idle(b) < 0)
        return NULL;
    b->seed = seed;
    b->finished = 0;
    if (env_run(b, NULL, 1) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static int batch_index(BatchObject *b, PyObject *arg, Py_ssize_t *i)
{
    if (batch_idle(b) < 0)
        return -1;
    Py_ssize_t x = PyNumber_AsSsize_t(arg, PyExc_IndexError);
    if (x == -1 && PyErr_Occurred())
        return -1;
    if (x < 0 || x >= b->n) {
        PyErr_Format(PyExc_IndexError, "Batch: deal index %zd out of range (0..%zd)", x, b->n - 1);
        return -1;
    }
    *i = x;
    return 0;
}

static PyObject *Batch_dealt(PyObject *self, PyObject *arg)
{
    BatchObject *b = (BatchObject *)self;
    Py_ssize_t i;
    if (batch_index(b, arg, &i) < 0)
        return NULL;
    const EnvSlot *d = &b->slots[i];
    PyObject *hands = PyTuple_New(4);
    if (!hands)
        return NULL;
    for (int s = 0; s < 4; s++) {
        PyObject *h = PyTuple_New(13);
        if (!h) {
            Py_DECREF(hands);
            return NULL;
        }
        PyTuple_SET_ITEM(hands, s, h);
        for (int k = 0; k < 13; k++) {
            PyObject *c = PyLong_FromLong(d->dealt[s][k]);
            if (!c) {
                Py_DECREF(hands);
                return NULL;
            }
            PyTuple_SET_ITEM(h, k, c);
        }
    }
    return hands;
}

static PyObject *Batch_deal_number(PyObject *self, PyObject *arg)
{
    BatchObject *b = (BatchObject *)self;
    Py_ssize_t i;
    if (batch_index(b, arg, &i) < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong(b->slots[i].number);
}

static PyObject *Batch_legal_actions(PyObject *self, PyObject *arg)
{
    BatchObject *b = (BatchObject *)self;
    Py_ssize_t i;
    if (batch_index(b, arg, &i) < 0)
        return NULL;
    return env_legal_list(&b->slots[i]);
}

static PyObject *Batch_get_n(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromSsize_t(((BatchObject *)self)->n);
}

static PyObject *Batch_get_seed(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(((BatchObject *)self)->seed);
}

static PyObject *Batch_get_finished(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(((BatchObject *)self)->finished);
}

static PyObject *Batch_get_threads(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(((BatchObject *)self)->threads);
}

static int Batch_set_threads(PyObject *self, PyObject *value, void *closure)
{
    (void)closure;
    BatchObject *b = (BatchObject *)self;
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "Batch: threads cannot be deleted");
        return -1;
    }
    if (batch_idle(b) < 0)
        return -1;
    return env_threads(value, &b->threads);
}

static PyMethodDef Batch_methods[] = {
    {"step", (PyCFunction)(void (*)(void))Batch_step, METH_VARARGS | METH_KEYWORDS,
     "step(actions, observe=True) -> the number of deals that ended\n\n"
     "One action per deal (int64 array of n).  Every action is checked first: an illegal one\n"
     "raises IllegalActionError and nothing changes.  A deal that ends is reported (dones,\n"
     "raw, takers) and the next deal of its slot dealt in its place; the arrays then hold\n"
     "each deal's seat to act, action mask and (observe=True) observation.  The GIL is\n"
     "released while the threads step."},
    {"reset", Batch_reset, METH_VARARGS,
     "reset(seed) -> deal deal 0 of every slot from seed and write the arrays"},
    {"dealt", Batch_dealt, METH_O,
     "dealt(i) -> the four hands of deal i (N, E, S, W) as dealt: card indices in the order\n"
     "received (R3)"},
    {"deal_number", Batch_deal_number, METH_O,
     "deal_number(i) -> j: slot i holds its deal j (0 after reset, +1 per finished deal)"},
    {"legal_actions", Batch_legal_actions, METH_O, "legal_actions(i) -> the legal actions of deal i"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Batch_getset[] = {
    {"n", Batch_get_n, NULL, "the number of deals", NULL},
    {"seed", Batch_get_seed, NULL, "the seed of the deals since the last reset", NULL},
    {"finished", Batch_get_finished, NULL, "deals finished since the last reset", NULL},
    {"threads", Batch_get_threads, Batch_set_threads, "OS threads a step runs on (1..256)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(Batch_doc,
             "Batch(n, seed, threads, options, layout, options_block, observations, action_masks,\n"
             "      to_act, dones, raw, takers)\n\n"
             "n one-deck deals stepped together (gongzhu.env.batch.BatchEnv wraps it).  options: the\n"
             "rule options as ints; layout: the start of each observation block and the length;\n"
             "options_block: the observation's options block (float32).  The arrays are written\n"
             "in place: observations float32 (n, size), action_masks int8 (n, 65), to_act int8 (n),\n"
             "dones bool (n), raw int64 (n, 4), takers int8 (n, 2).  Deal j of slot i is dealt\n"
             "from a stream of (seed, i, j) only.  The deals of deal 0 are dealt at once.");

static PyTypeObject BatchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gongzhu.rules._fastplay.Batch",
    .tp_basicsize = sizeof(BatchObject),
    .tp_itemsize = 0,
    .tp_dealloc = Batch_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = Batch_doc,
    .tp_methods = Batch_methods,
    .tp_getset = Batch_getset,
    .tp_new = Batch_new,
};

/* Add Batch and IllegalActionError to the module. */
static int env_add_to_module(PyObject *m)
{
    EnvIllegalActionError = PyErr_NewExceptionWithDoc(
        "gongzhu.rules._fastplay.IllegalActionError",
        "An action of a Batch step that the deal's mask does not allow; nothing was changed.\n"
        "Attributes: deal (its index), seat, action, legal (the legal actions).",
        PyExc_ValueError, NULL);
    if (!EnvIllegalActionError)
        return -1;
    if (PyModule_AddObjectRef(m, "IllegalActionError", EnvIllegalActionError) < 0)
        return -1;
    return PyModule_AddType(m, &BatchType);
}

#endif /* GONGZHU_FASTENV_H */
