/* A plain pull sweep of English peg solitaire (33 holes, one peg left anywhere), the yardstick
 * curator's sweep is timed against: every position of layer k, in colex rank order, finds its
 * jumps one by one, ranks each child by summing binomials and reads the child's bits in layer
 * k - 1. It computes the same three properties and prints, per layer, how many positions have
 * each (benchmarks/pull_ratio.py compares them with curator's).
 *
 *     cc -O2 -march=native -o pull_sweep pull_sweep.c && ./pull_sweep 11
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CELLS 33

static const char *ART[7] = {"  ...  ", "  ...  ", ".......", ".......", ".......", "  ...  ", "  ...  "};
static uint64_t binomial[CELLS + 1][CELLS + 1];
static int jump[4 * CELLS][3];
static int jumps;

static void setup(void) {
    int index[7][7];
    int cells = 0;
    for (int r = 0; r < 7; r++)
        for (int c = 0; c < 7; c++)
            index[r][c] = ART[r][c] == '.' ? cells++ : -1;
    static const int step[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    for (int r = 0; r < 7; r++)
        for (int c = 0; c < 7; c++)
            for (int d = 0; d < 4; d++) {
                int r1 = r + step[d][0], c1 = c + step[d][1], r2 = r + 2 * step[d][0], c2 = c + 2 * step[d][1];
                if (index[r][c] < 0 || r2 < 0 || r2 > 6 || c2 < 0 || c2 > 6) continue;
                if (index[r1][c1] < 0 || index[r2][c2] < 0) continue;
                jump[jumps][0] = index[r][c];
                jump[jumps][1] = index[r1][c1];
                jump[jumps][2] = index[r2][c2];
                jumps++;
            }
    for (int n = 0; n <= CELLS; n++) {
        binomial[n][0] = 1;
        for (int k = 1; k <= n; k++) binomial[n][k] = binomial[n - 1][k - 1] + (k <= n - 1 ? binomial[n - 1][k] : 0);
    }
}

static uint64_t rank(uint64_t mask) {
    uint64_t r = 0;
    for (int i = 1; mask; i++, mask &= mask - 1) r += binomial[__builtin_ctzll(mask)][i];
    return r;
}

static int bit(const uint64_t *words, uint64_t i) { return (words[i >> 6] >> (i & 63)) & 1; }

int main(int argc, char **argv) {
    int top = argc > 1 ? atoi(argv[1]) : 11;
    setup();
    uint64_t *below[3] = {NULL, NULL, NULL};
    for (int k = 1; k <= top; k++) {
        uint64_t size = binomial[CELLS][k], words = (size + 63) / 64;
        uint64_t *layer[3];
        for (int p = 0; p < 3; p++) layer[p] = calloc(words, 8);
        uint64_t counts[3] = {0, 0, 0};
        uint64_t mask = (1ULL << k) - 1;
        for (uint64_t r = 0; r < size; r++) {
            int solvable, unique, all;
            if (k == 1) {
                solvable = unique = 1;
                all = 0;
            } else {
                int good = 0, moves = 0;
                uint64_t first = 0;
                for (int j = 0; j < jumps; j++) {
                    uint64_t a = 1ULL << jump[j][0], b = 1ULL << jump[j][1], c = 1ULL << jump[j][2];
                    if ((mask & a) && (mask & b) && !(mask & c)) {
                        uint64_t child = rank(mask ^ a ^ b ^ c);
                        moves++;
                        if (bit(below[0], child)) {
                            if (good++ == 0) first = child;
                        }
                    }
                }
                solvable = good > 0;
                unique = good == 1 && bit(below[1], first);
                all = moves > 0 && good == moves;
            }
            layer[0][r >> 6] |= (uint64_t)solvable << (r & 63);
            layer[1][r >> 6] |= (uint64_t)unique << (r & 63);
            layer[2][r >> 6] |= (uint64_t)all << (r & 63);
            counts[0] += solvable;
            counts[1] += unique;
            counts[2] += all;
            uint64_t low = mask & -mask, ripple = mask + low;
            mask = ripple | (((ripple ^ mask) >> 2) / low);
        }
        printf("k%02d %llu %llu %llu %llu\n", k, (unsigned long long)size, (unsigned long long)counts[0],
               (unsigned long long)counts[1], (unsigned long long)counts[2]);
        for (int p = 0; p < 3; p++) {
            free(below[p]);
            below[p] = layer[p];
        }
    }
    return 0;
}
