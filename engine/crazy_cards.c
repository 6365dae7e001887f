/* engine/crazy_cards.c — Crazy Pilot's card catalogue: the data file's
 * parser and validator, the rules of the road (cz_scene_answer) and a
 * card's face (crazy_cards.h; the format and the rules in words:
 * docs/games/crazy-pilot-cards.md). */
#include "engine/crazy_cards.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/walk.h"

#define ELEMENTSOF(a)           (sizeof(a) / sizeof((a)[0]))
#define ASCII_FIRST_PRINTABLE   0x20
#define ASCII_LAST_PRINTABLE    0x7e
/* Longest word of a line we look at: a key, an enum's name, an item. */
#define WORD_MAX                32
/* Longest list of choices in an error message. */
#define CHOICES_MAX             200

/* ---- Names. */

static const char *const answer_names[CZ_N_ANSWERS] = {
        [CZ_ANS_STRAIGHT] = "straight", [CZ_ANS_LEFT] = "left", [CZ_ANS_RIGHT] = "right",
        [CZ_ANS_UTURN] = "u_turn", [CZ_ANS_HAND] = "hand", [CZ_ANS_ZOMBIE] = "zombie",
        [CZ_ANS_FORK_LEFT] = "fork_left", [CZ_ANS_FORK_RIGHT] = "fork_right",
};

static const char *const road_names[CZ_N_ROADS] = {
        [CZ_ROAD_STRAIGHT] = "straight", [CZ_ROAD_FORK_LEFT] = "fork_left",
        [CZ_ROAD_FORK_RIGHT] = "fork_right", [CZ_ROAD_CROSSROADS] = "crossroads",
        [CZ_ROAD_T_JUNCTION] = "t_junction", [CZ_ROAD_DEAD_END] = "dead_end",
};

static const char *const light_names[CZ_N_LIGHTS] = {
        [CZ_LIGHT_NONE] = "none", [CZ_LIGHT_RED] = "red", [CZ_LIGHT_AMBER] = "amber",
        [CZ_LIGHT_GREEN] = "green",
};

static const char *const sign_names[CZ_N_SIGNS] = {
        [CZ_SIGN_NONE] = "none", [CZ_SIGN_STOP] = "stop", [CZ_SIGN_GIVE_WAY] = "give_way",
        [CZ_SIGN_NO_ENTRY] = "no_entry", [CZ_SIGN_ROAD_CLOSED] = "road_closed",
        [CZ_SIGN_KEEP_LEFT] = "keep_left", [CZ_SIGN_KEEP_RIGHT] = "keep_right",
        [CZ_SIGN_SPEED_LIMIT] = "speed_limit",
};

static const char *const marking_names[CZ_N_MARKINGS] = {
        [CZ_MARK_NONE] = "none", [CZ_MARK_ZEBRA] = "zebra", [CZ_MARK_LEVEL_CROSSING] = "level_crossing",
};

static const char *const item_names[CZ_N_ITEMS] = {
        [CZ_ITEM_CAR] = "car", [CZ_ITEM_TRUCK] = "truck", [CZ_ITEM_BUS] = "bus",
        [CZ_ITEM_TRACTOR] = "tractor", [CZ_ITEM_BICYCLE] = "bicycle",
        [CZ_ITEM_PEDESTRIAN] = "pedestrian", [CZ_ITEM_CHILD] = "child", [CZ_ITEM_DOG] = "dog",
        [CZ_ITEM_COW] = "cow", [CZ_ITEM_BALL] = "ball", [CZ_ITEM_CONE] = "cone",
        [CZ_ITEM_ROADWORKS] = "roadworks", [CZ_ITEM_TREE] = "tree", [CZ_ITEM_ROCK] = "rock",
        [CZ_ITEM_HOLE] = "hole", [CZ_ITEM_FLOOD] = "flood", [CZ_ITEM_MONSTER] = "monster",
        [CZ_ITEM_TRAIN] = "train", [CZ_ITEM_ZOMBIE] = "zombie", [CZ_ITEM_SCARECROW] = "scarecrow",
        [CZ_ITEM_MANNEQUIN] = "mannequin",
};

static const char *name_of(const char *const *names, size_t n, unsigned i) {
        return i < n ? names[i] : NULL;
}

const char *cz_answer_name(unsigned answer) {
        return name_of(answer_names, ELEMENTSOF(answer_names), answer);
}

const char *cz_road_name(unsigned road) {
        return name_of(road_names, ELEMENTSOF(road_names), road);
}

const char *cz_light_name(unsigned light) {
        return name_of(light_names, ELEMENTSOF(light_names), light);
}

const char *cz_sign_name(unsigned sign) {
        return name_of(sign_names, ELEMENTSOF(sign_names), sign);
}

const char *cz_marking_name(unsigned marking) {
        return name_of(marking_names, ELEMENTSOF(marking_names), marking);
}

const char *cz_item_name(unsigned kind) {
        return name_of(item_names, ELEMENTSOF(item_names), kind);
}

/* ---- What a scene calls for (docs/games/crazy-pilot-cards.md, "What a
 * scene calls for").  The rules are tried in order; the first that applies
 * decides.  Everything in the lanes stands before the junction at the top
 * of the picture, so an obstacle across the road closes every way on. */

/* Fixed obstacles: each closes the lane it stands in, whatever its row. */
static bool is_blocker(unsigned kind) {
        switch (kind) {
        case CZ_ITEM_CONE: case CZ_ITEM_ROADWORKS: case CZ_ITEM_TREE: case CZ_ITEM_ROCK:
        case CZ_ITEM_HOLE: case CZ_ITEM_FLOOD:
                return true;
        default:
                return false;
        }
}

/* Traffic going the car's way: only one right in front (row 1) matters. */
static bool is_vehicle(unsigned kind) {
        switch (kind) {
        case CZ_ITEM_CAR: case CZ_ITEM_TRUCK: case CZ_ITEM_BUS: case CZ_ITEM_TRACTOR:
        case CZ_ITEM_BICYCLE:
                return true;
        default:
                return false;
        }
}

static bool is_person(unsigned kind) {
        return kind == CZ_ITEM_PEDESTRIAN || kind == CZ_ITEM_CHILD;
}

static bool in_lane(const struct cz_scene *s, const struct cz_item *it) {
        return it->lane >= 1 && it->lane <= s->lanes;
}

static bool has_kind(const struct cz_scene *s, unsigned kind) {
        for (unsigned i = 0; i < s->n_items && i < CZ_MAX_ITEMS; i++)
                if (s->items[i].kind == kind)
                        return true;
        return false;
}

/* A blocker in lane: the lane is closed, whatever stands in it. */
static bool lane_closed(const struct cz_scene *s, unsigned lane) {
        for (unsigned i = 0; i < s->n_items && i < CZ_MAX_ITEMS; i++)
                if (s->items[i].lane == lane && is_blocker(s->items[i].kind))
                        return true;
        return false;
}

/* A vehicle right in front (row 1) in lane. */
static bool lane_busy_near(const struct cz_scene *s, unsigned lane) {
        for (unsigned i = 0; i < s->n_items && i < CZ_MAX_ITEMS; i++)
                if (s->items[i].lane == lane && s->items[i].row == 1 && is_vehicle(s->items[i].kind))
                        return true;
        return false;
}

/* A lane the car may move into: a lane of the road, not closed, no vehicle
 * right beside. */
static bool lane_free(const struct cz_scene *s, int lane) {
        return lane >= 1 && lane <= s->lanes && !lane_closed(s, (unsigned) lane) &&
               !lane_busy_near(s, (unsigned) lane);
}

/* Why a crosser on the road is a stop, by its kind. */
static const char *crosser_why(unsigned kind) {
        switch (kind) {
        case CZ_ITEM_PEDESTRIAN:
                return "someone is crossing the road: stop, let them cross, then go on";
        case CZ_ITEM_CHILD:
                return "a child is on the road: stop, let them cross, then go on";
        case CZ_ITEM_DOG:
                return "a dog is on the road: stop, let it cross, then go on";
        case CZ_ITEM_COW:
                return "cows are on the road: stop, let them cross, then go on";
        case CZ_ITEM_BALL:
                return "a ball rolls onto the road and a child may run after it: stop, then go on";
        case CZ_ITEM_TRAIN:
                return "a train is on the level crossing: stop, let it pass, then go on";
        default:
                return NULL;
        }
}

static enum cz_answer decide(enum cz_answer a, const char *why, const char **ret_why) {
        if (ret_why)
                *ret_why = why;
        return a;
}

/* The car's lane is blocked: the nearest free lane, a tie broken by a keep
 * sign or else to the left (one overtakes on the left); none: wait. */
static enum cz_answer change_lane(const struct cz_scene *s, const char **ret_why) {
        int car = s->car_lane;

        for (int d = 1; d < CZ_MAX_LANES; d++) {
                bool left = lane_free(s, car - d), right = lane_free(s, car + d);

                if (left && right && s->sign == CZ_SIGN_KEEP_RIGHT)
                        return decide(CZ_ANS_RIGHT, "your lane is blocked and the keep right sign sends "
                                      "you to the free lane on the right", ret_why);
                if (left && right)
                        return decide(CZ_ANS_LEFT, "your lane is blocked and both sides are free: "
                                      "overtake on the left", ret_why);
                if (left)
                        return decide(CZ_ANS_LEFT, "your lane is blocked and the lane to the left is "
                                      "free: move left", ret_why);
                if (right)
                        return decide(CZ_ANS_RIGHT, "your lane is blocked and the lane to the right is "
                                      "free: move right", ret_why);
        }
        return decide(CZ_ANS_HAND, "your lane is blocked and no other lane is free: stop, wait for "
                      "the traffic beside you, then go on", ret_why);
}

enum cz_answer cz_scene_answer(const struct cz_scene *s, const char **ret_why) {
        unsigned blockers = 0;

        if (!s)
                return decide(CZ_ANS_STRAIGHT, "no scene", ret_why);

        /* 1. Zombies, anywhere, however small or far. */
        if (has_kind(s, CZ_ITEM_ZOMBIE))
                return decide(CZ_ANS_ZOMBIE, "a zombie is in the scene: shout Zombieeees!", ret_why);

        /* 2. No way through: stopping will not solve it. */
        if (has_kind(s, CZ_ITEM_MONSTER))
                return decide(CZ_ANS_UTURN, "a monster: too dangerous to pass, find another route",
                              ret_why);
        if (s->road == CZ_ROAD_DEAD_END)
                return decide(CZ_ANS_UTURN, "a dead end: no way through, find another route", ret_why);
        if (s->sign == CZ_SIGN_NO_ENTRY)
                return decide(CZ_ANS_UTURN, "a no entry sign: you may not go on, find another route",
                              ret_why);
        if (s->sign == CZ_SIGN_ROAD_CLOSED)
                return decide(CZ_ANS_UTURN, "a road closed sign: you may not go on, find another route",
                              ret_why);
        for (unsigned lane = 1; lane <= s->lanes && lane <= CZ_MAX_LANES; lane++)
                blockers += lane_closed(s, lane);
        if (s->lanes >= 1 && blockers == s->lanes)
                return decide(CZ_ANS_UTURN, "obstacles close every lane: no way through, find another "
                              "route", ret_why);

        /* 3. A stop that solves it: wait, then go on. */
        if (s->light == CZ_LIGHT_RED)
                return decide(CZ_ANS_HAND, "a red light: stop, then go on when it turns green", ret_why);
        if (s->light == CZ_LIGHT_AMBER)
                return decide(CZ_ANS_HAND, "an amber light: stop, then go on when it turns green",
                              ret_why);
        if (s->sign == CZ_SIGN_STOP)
                return decide(CZ_ANS_HAND, "a stop sign: stop, then go on", ret_why);
        if (s->sign == CZ_SIGN_GIVE_WAY)
                return decide(CZ_ANS_HAND, "a give way sign: stop, let the others pass, then go on",
                              ret_why);
        for (unsigned i = 0; i < s->n_items && i < CZ_MAX_ITEMS; i++) {
                const char *why = crosser_why(s->items[i].kind);

                if (why && in_lane(s, &s->items[i]))
                        return decide(CZ_ANS_HAND, why, ret_why);
        }
        if (s->marking == CZ_MARK_ZEBRA)
                for (unsigned i = 0; i < s->n_items && i < CZ_MAX_ITEMS; i++)
                        if (is_person(s->items[i].kind))
                                return decide(CZ_ANS_HAND, "someone waits at the zebra crossing: stop, "
                                              "let them cross, then go on", ret_why);
        if (s->road == CZ_ROAD_T_JUNCTION)
                return decide(CZ_ANS_HAND, "the road ends in a T-junction: stop at the line, then go on",
                              ret_why);

        /* 4. The car's lane blocked: change lanes. */
        if (lane_closed(s, s->car_lane) || lane_busy_near(s, s->car_lane))
                return change_lane(s, ret_why);

        /* 5. A keep sign, when the car is not in the kept lane yet. */
        if (s->sign == CZ_SIGN_KEEP_LEFT && s->car_lane > 1)
                return lane_free(s, s->car_lane - 1)
                        ? decide(CZ_ANS_LEFT, "a keep left sign: move to the left lane", ret_why)
                        : decide(CZ_ANS_HAND, "a keep left sign and the lane to the left is busy: "
                                 "stop, then move over", ret_why);
        if (s->sign == CZ_SIGN_KEEP_RIGHT && s->car_lane < s->lanes)
                return lane_free(s, s->car_lane + 1)
                        ? decide(CZ_ANS_RIGHT, "a keep right sign: move to the right lane", ret_why)
                        : decide(CZ_ANS_HAND, "a keep right sign and the lane to the right is busy: "
                                 "stop, then move over", ret_why);

        /* 6. A fork with both ways open. */
        if (s->road == CZ_ROAD_FORK_LEFT)
                return decide(CZ_ANS_FORK_LEFT, "a fork with both ways open: left or straight on",
                              ret_why);
        if (s->road == CZ_ROAD_FORK_RIGHT)
                return decide(CZ_ANS_FORK_RIGHT, "a fork with both ways open: right or straight on",
                              ret_why);

        /* 7. Nothing calls for anything: decoys, the verges, far traffic. */
        return decide(CZ_ANS_STRAIGHT, "the way ahead is clear: drive straight on", ret_why);
}

/* ---- The data file. */

/* Where an error is: the line's field ("data.cards line 12") and, once
 * known, the card's id. */
struct where {
        char field[ENG_FIELD_MAX];
        const char *id;
};

/* "data.cards line 12 (card c12): lanes: must be 1..3", field
 * "data.cards line 12". */
static int fail(struct eng_error *ret_err, const struct where *at, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static int fail(struct eng_error *ret_err, const struct where *at, const char *fmt, ...) {
        va_list ap;
        int n;

        if (!ret_err)
                return -EINVAL;
        snprintf(ret_err->field, sizeof ret_err->field, "%s", at->field);
        if (at->id && at->id[0])
                n = snprintf(ret_err->message, sizeof ret_err->message, "%s (card %s): ", at->field, at->id);
        else
                n = snprintf(ret_err->message, sizeof ret_err->message, "%s: ", at->field);
        if (n < 0 || (size_t) n >= sizeof ret_err->message)
                return -EINVAL;
        va_start(ap, fmt);
        vsnprintf(ret_err->message + n, sizeof ret_err->message - (size_t) n, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* A word of the line: [start, start + len). */
struct word {
        const char *s;
        size_t len;
};

static bool word_is(struct word w, const char *s) {
        return strlen(s) == w.len && memcmp(w.s, s, w.len) == 0;
}

/* The word as a C string (cut to WORD_MAX) for a message. */
static const char *word_text(struct word w, char buf[WORD_MAX + 1]) {
        size_t n = w.len < WORD_MAX ? w.len : WORD_MAX;

        memcpy(buf, w.s, n);
        buf[n] = '\0';
        return buf;
}

static void choice_list(const char *const *names, size_t n, char buf[CHOICES_MAX]) {
        size_t at = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < n; i++) {
                int r = snprintf(buf + at, CHOICES_MAX - at, "%s%s", i ? ", " : "", names[i]);

                if (r < 0 || (size_t) r >= CHOICES_MAX - at)
                        return;
                at += (size_t) r;
        }
}

/* An enum's value by name: 0 with *ret, or the error naming key. */
static int parse_enum(struct word w, const char *const *names, size_t n, const char *key, uint8_t *ret,
                      const struct where *at, struct eng_error *ret_err) {
        char buf[WORD_MAX + 1], choices[CHOICES_MAX];

        for (size_t i = 0; i < n; i++)
                if (word_is(w, names[i])) {
                        *ret = (uint8_t) i;
                        return 0;
                }
        choice_list(names, n, choices);
        return fail(ret_err, at, "%s: \"%s\" is not one of %s", key, word_text(w, buf), choices);
}

/* A small decimal number, digits only: 0 with *ret, -EINVAL otherwise. */
static int parse_small(const char *s, size_t len, unsigned *ret) {
        unsigned v = 0;

        if (len == 0 || len > 3)
                return -EINVAL;
        for (size_t i = 0; i < len; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -EINVAL;
                v = v * 10 + (unsigned) (s[i] - '0');
        }
        *ret = v;
        return 0;
}

/* One item, "kind@lane/row", as items[i]. */
static int parse_item(struct word w, unsigned i, struct cz_item *ret, const struct where *at,
                      struct eng_error *ret_err) {
        char key[WORD_MAX], buf[WORD_MAX + 1];
        const char *atsign = memchr(w.s, '@', w.len), *slash;
        unsigned lane, row;
        uint8_t kind;
        int r;

        snprintf(key, sizeof key, "items[%u]", i);
        if (!atsign || !(slash = memchr(atsign, '/', w.len - (size_t) (atsign - w.s))))
                return fail(ret_err, at, "%s: \"%s\" is not kind@lane/row (\"bicycle@3/1\")", key,
                            word_text(w, buf));
        r = parse_enum((struct word) { w.s, (size_t) (atsign - w.s) }, item_names, CZ_N_ITEMS, key, &kind,
                       at, ret_err);
        if (r < 0)
                return r;
        if (parse_small(atsign + 1, (size_t) (slash - atsign - 1), &lane) < 0)
                return fail(ret_err, at, "%s: the lane of \"%s\" is not a number", key, word_text(w, buf));
        if (parse_small(slash + 1, w.len - (size_t) (slash + 1 - w.s), &row) < 0)
                return fail(ret_err, at, "%s: the row of \"%s\" is not a number", key, word_text(w, buf));
        /* Against the road's lanes once the whole line is read (check_card). */
        if (lane > UINT8_MAX)
                return fail(ret_err, at, "%s: lane %u must be 0..lanes + 1 (0 the left verge, lanes + 1 the "
                            "right one)", key, lane);
        if (row < 1 || row > CZ_MAX_ROWS)
                return fail(ret_err, at, "%s: row %u must be 1..%d (1 near, %d far)", key, row, CZ_MAX_ROWS,
                            CZ_MAX_ROWS);
        ret->kind = kind;
        ret->lane = (uint8_t) lane;
        ret->row = (uint8_t) row;
        return 0;
}

/* "items=a@1/2,b@0/3" (the empty list: "items=" or no items key). */
static int parse_items(struct word v, struct cz_scene *scene, const struct where *at,
                       struct eng_error *ret_err) {
        size_t pos = 0;

        scene->n_items = 0;
        while (pos < v.len) {
                size_t end = pos;
                int r;

                while (end < v.len && v.s[end] != ',')
                        end++;
                if (scene->n_items == CZ_MAX_ITEMS)
                        return fail(ret_err, at, "items: holds more than %d items", CZ_MAX_ITEMS);
                if (end == pos)
                        return fail(ret_err, at, "items[%u]: is empty (items are separated by single commas)",
                                    scene->n_items);
                r = parse_item((struct word) { v.s + pos, end - pos }, scene->n_items,
                               &scene->items[scene->n_items], at, ret_err);
                if (r < 0)
                        return r;
                scene->n_items++;
                pos = end + 1;
                if (end < v.len && pos == v.len)
                        return fail(ret_err, at, "items[%u]: is empty (items are separated by single commas)",
                                    scene->n_items);
        }
        return 0;
}

enum key {
        KEY_ROAD, KEY_LANES, KEY_CAR, KEY_LIGHT, KEY_SIGN, KEY_MARKING, KEY_ITEMS, KEY_ZOMBIE,
        N_KEYS,
};

static const char *const key_names[N_KEYS] = {
        [KEY_ROAD] = "road", [KEY_LANES] = "lanes", [KEY_CAR] = "car", [KEY_LIGHT] = "light",
        [KEY_SIGN] = "sign", [KEY_MARKING] = "marking", [KEY_ITEMS] = "items", [KEY_ZOMBIE] = "zombie",
};

/* Keys a card must give; the others default to none, no items, zombie=no. */
static const bool key_required[N_KEYS] = { [KEY_ROAD] = true, [KEY_LANES] = true, [KEY_CAR] = true };

static const char *const yes_no[] = { "no", "yes" };

/* One key=value of the line into *card.  seen[] says which keys came. */
static int parse_field(struct word w, struct cz_card *card, unsigned *lanes, unsigned *car, bool seen[N_KEYS],
                       const struct where *at, struct eng_error *ret_err) {
        const char *eq = memchr(w.s, '=', w.len);
        char buf[WORD_MAX + 1], choices[CHOICES_MAX];
        struct word k, v;
        size_t key;
        uint8_t flag = 0;
        int r = 0;

        if (!eq)
                return fail(ret_err, at, "\"%s\" is not key=value", word_text(w, buf));
        k = (struct word) { w.s, (size_t) (eq - w.s) };
        v = (struct word) { eq + 1, w.len - k.len - 1 };
        for (key = 0; key < N_KEYS && !word_is(k, key_names[key]); key++)
                ;
        if (key == N_KEYS) {
                choice_list(key_names, N_KEYS, choices);
                return fail(ret_err, at, "\"%s\" is not a field; the fields are %s", word_text(k, buf),
                            choices);
        }
        if (seen[key])
                return fail(ret_err, at, "%s: is given twice", key_names[key]);
        seen[key] = true;
        switch ((enum key) key) {
        case KEY_ROAD:
                return parse_enum(v, road_names, CZ_N_ROADS, "road", &card->scene.road, at, ret_err);
        case KEY_LIGHT:
                return parse_enum(v, light_names, CZ_N_LIGHTS, "light", &card->scene.light, at, ret_err);
        case KEY_SIGN:
                return parse_enum(v, sign_names, CZ_N_SIGNS, "sign", &card->scene.sign, at, ret_err);
        case KEY_MARKING:
                return parse_enum(v, marking_names, CZ_N_MARKINGS, "marking", &card->scene.marking, at,
                                  ret_err);
        case KEY_ITEMS:
                return parse_items(v, &card->scene, at, ret_err);
        case KEY_ZOMBIE:
                r = parse_enum(v, yes_no, ELEMENTSOF(yes_no), "zombie", &flag, at, ret_err);
                card->zombie = flag;
                return r;
        case KEY_LANES:
                if (parse_small(v.s, v.len, lanes) < 0 || *lanes < 1 || *lanes > CZ_MAX_LANES)
                        return fail(ret_err, at, "lanes: must be 1..%d, not \"%s\"", CZ_MAX_LANES,
                                    word_text(v, buf));
                return 0;
        case KEY_CAR:
                if (parse_small(v.s, v.len, car) < 0 || *car < 1 || *car > CZ_MAX_LANES)
                        return fail(ret_err, at, "car: must be a lane, 1..%d, not \"%s\"", CZ_MAX_LANES,
                                    word_text(v, buf));
                return 0;
        case N_KEYS:
                break;
        }
        return -EINVAL;
}

/* What holds between the fields of a card, once all are read. */
static int check_card(const struct cz_card *card, const struct where *at, struct eng_error *ret_err) {
        const struct cz_scene *s = &card->scene;
        int zombie_item = -1;
        enum cz_answer called;
        const char *why;

        if (s->car_lane > s->lanes)
                return fail(ret_err, at, "car: lane %u is not a lane of the road (1..%u)", s->car_lane,
                            s->lanes);
        for (unsigned i = 0; i < s->n_items; i++) {
                const struct cz_item *it = &s->items[i];

                if (it->lane > s->lanes + 1)
                        return fail(ret_err, at, "items[%u]: lane %u must be 0..%u (0 the left verge, %u the "
                                    "right one)", i, it->lane, s->lanes + 1, s->lanes + 1);
                for (unsigned j = 0; j < i; j++)
                        if (s->items[j].lane == it->lane && s->items[j].row == it->row)
                                return fail(ret_err, at, "items[%u]: lane %u row %u is taken by items[%u]", i,
                                            it->lane, it->row, j);
                if (it->kind == CZ_ITEM_TRAIN && s->marking != CZ_MARK_LEVEL_CROSSING)
                        return fail(ret_err, at, "items[%u]: a train needs marking=level_crossing", i);
                if (it->kind == CZ_ITEM_ZOMBIE && zombie_item < 0)
                        zombie_item = (int) i;
        }
        if (card->zombie && zombie_item < 0)
                return fail(ret_err, at, "zombie: is yes but no item of the scene is a zombie");
        if (!card->zombie && zombie_item >= 0)
                return fail(ret_err, at, "zombie: is no but items[%d] is a zombie (say zombie=yes)",
                            zombie_item);
        if (card->zombie != (card->answer == CZ_ANS_ZOMBIE))
                return fail(ret_err, at, "answer: is %s but the card %s a zombie", answer_names[card->answer],
                            card->zombie ? "holds" : "does not hold");
        called = cz_scene_answer(s, &why);
        if (called != card->answer)
                return fail(ret_err, at, "answer: is %s but the scene calls for %s (%s)",
                            answer_names[card->answer], answer_names[called], why);
        return 0;
}

static bool id_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* The next blank-separated word of [*pos, end). */
static bool next_word(const char *line, size_t end, size_t *pos, struct word *ret) {
        while (*pos < end && (line[*pos] == ' ' || line[*pos] == '\t'))
                (*pos)++;
        if (*pos == end)
                return false;
        ret->s = line + *pos;
        while (*pos < end && line[*pos] != ' ' && line[*pos] != '\t')
                (*pos)++;
        ret->len = (size_t) (line + *pos - ret->s);
        return true;
}

/* One line: "ID ANSWER key=value ... | text". */
static int parse_line(const char *line, size_t n_line, struct cz_card *card, struct where *at,
                      struct eng_error *ret_err) {
        const char *bar = memchr(line, '|', n_line);
        size_t head = bar ? (size_t) (bar - line) : n_line, pos = 0, t0, t1;
        bool seen[N_KEYS] = { false };
        unsigned lanes = 0, car = 0;
        char buf[WORD_MAX + 1];
        struct word w;
        int r;

        memset(card, 0, sizeof *card);
        for (size_t i = 0; i < n_line; i++) {
                unsigned char c = (unsigned char) line[i];

                if (c != '\t' && (c < ASCII_FIRST_PRINTABLE || c > ASCII_LAST_PRINTABLE))
                        return fail(ret_err, at, "holds byte 0x%02x at column %zu; a card line is printable "
                                    "ASCII", c, i + 1);
        }
        if (!next_word(line, head, &pos, &w))
                return fail(ret_err, at, "id: missing; a card line is \"ID ANSWER key=value ... | text\"");
        if (w.len > CZ_ID_MAX)
                return fail(ret_err, at, "id: \"%s\" is %zu characters; at most %d", word_text(w, buf), w.len,
                            CZ_ID_MAX);
        for (size_t i = 0; i < w.len; i++)
                if (!id_char(w.s[i]))
                        return fail(ret_err, at, "id: \"%s\" holds '%c'; an id is a-z, 0-9, _ and -",
                                    word_text(w, buf), w.s[i]);
        memcpy(card->id, w.s, w.len);
        card->id[w.len] = '\0';
        at->id = card->id;
        if (!next_word(line, head, &pos, &w))
                return fail(ret_err, at, "answer: missing; a card line is \"ID ANSWER key=value ... | text\"");
        r = parse_enum(w, answer_names, CZ_N_ANSWERS, "answer", &card->answer, at, ret_err);
        if (r < 0)
                return r;
        while (next_word(line, head, &pos, &w)) {
                r = parse_field(w, card, &lanes, &car, seen, at, ret_err);
                if (r < 0)
                        return r;
        }
        for (size_t k = 0; k < N_KEYS; k++)
                if (key_required[k] && !seen[k])
                        return fail(ret_err, at, "%s: missing; every card gives road, lanes and car",
                                    key_names[k]);
        card->scene.lanes = (uint8_t) lanes;
        card->scene.car_lane = (uint8_t) car;
        if (!bar)
                return fail(ret_err, at, "text: missing; the scene's text follows a \"|\"");
        t0 = head + 1;
        t1 = n_line;
        while (t0 < t1 && (line[t0] == ' ' || line[t0] == '\t'))
                t0++;
        if (t0 == t1)
                return fail(ret_err, at, "text: is empty; the scene's text follows the \"|\"");
        if (t1 - t0 > CZ_TEXT_MAX)
                return fail(ret_err, at, "text: is %zu characters; at most %d", t1 - t0, CZ_TEXT_MAX);
        for (size_t i = t0; i < t1; i++)
                if (line[i] == '|' || line[i] == '"' || line[i] == '\\' || line[i] == '\t')
                        return fail(ret_err, at, "text: holds '%s' at column %zu; a text has no |, \", \\ or "
                                    "tab", line[i] == '\t' ? "\\t" : (char[2]) { line[i], '\0' }, i + 1);
        memcpy(card->text, line + t0, t1 - t0);
        card->text[t1 - t0] = '\0';
        return check_card(card, at, ret_err);
}

int cz_catalogue_parse(const char *text, size_t len, struct cz_catalogue *ret, struct eng_error *ret_err) {
        struct where file = { .field = "data.cards" };
        const char *line;
        size_t pos = 0, n_line;
        unsigned line_no = 0;

        if (!text || !ret)
                return fail(ret_err, &file, "cannot be read");
        if (len > CZ_CARDS_MAX_LEN)
                return fail(ret_err, &file, "is %zu bytes; at most %d are accepted", len, CZ_CARDS_MAX_LEN);
        ret->n = 0;
        while (eng_data_next_line(text, len, &pos, &line, &n_line, &line_no) > 0) {
                struct where at = { .id = NULL };
                struct cz_card card;
                int r;

                snprintf(at.field, sizeof at.field, "data.cards line %u", line_no);
                r = parse_line(line, n_line, &card, &at, ret_err);
                if (r < 0)
                        return r;
                for (unsigned j = 0; j < ret->n; j++)
                        if (strcmp(ret->cards[j].id, card.id) == 0)
                                return fail(ret_err, &at, "id: \"%s\" is already card %u's", card.id, j + 1);
                if (ret->n == CZ_MAX_CARDS)
                        return fail(ret_err, &at, "is card %d; at most %d are accepted", CZ_MAX_CARDS + 1,
                                    CZ_MAX_CARDS);
                ret->cards[ret->n++] = card;
        }
        if (ret->n == 0)
                return fail(ret_err, &file, "holds no card; 1 to %d are needed", CZ_MAX_CARDS);
        return 0;
}

/* ---- A card's face. */

int cz_card_face_visit(const struct cz_card *card, const struct eng_visitor *v, void *ctx) {
        struct eng_walk w = { .v = v, .ctx = ctx };
        const struct cz_scene *s;

        if (!card || !v)
                return -EINVAL;
        s = &card->scene;
        eng_walk_str(&w, ENG_CARD_NAME, card->text);
        eng_walk_obj(&w, "scene");
        eng_walk_str(&w, "road", cz_road_name(s->road) ? cz_road_name(s->road) : "straight");
        eng_walk_int(&w, "lanes", s->lanes);
        eng_walk_int(&w, "car_lane", s->car_lane);
        eng_walk_str(&w, "light", cz_light_name(s->light) ? cz_light_name(s->light) : "none");
        eng_walk_str(&w, "sign", cz_sign_name(s->sign) ? cz_sign_name(s->sign) : "none");
        eng_walk_str(&w, "marking", cz_marking_name(s->marking) ? cz_marking_name(s->marking) : "none");
        eng_walk_arr(&w, "items");
        for (unsigned i = 0; i < s->n_items && i < CZ_MAX_ITEMS; i++) {
                const char *kind = cz_item_name(s->items[i].kind);

                eng_walk_obj(&w, NULL);
                eng_walk_str(&w, "kind", kind ? kind : "none");
                eng_walk_int(&w, "lane", s->items[i].lane);
                eng_walk_int(&w, "row", s->items[i].row);
                eng_walk_end_obj(&w);
        }
        eng_walk_end_arr(&w);
        eng_walk_end_obj(&w);
        return w.r;
}
