/* A C program for the execution oracle (QEMU) and our core: the runtime
 * tpb cc links (tpb_rt.c: division, memset/memcpy, tpb_printf) exercised
 * over signed and unsigned arithmetic, shifts, arrays and a struct copy;
 * what it prints and its exit status must agree. */
#include "tpb_fw.h"

struct point {
    int x, y;
    unsigned char tag[6];
};

static unsigned lcg(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

static int isqrt(unsigned v)
{
    unsigned r = 0;
    for (unsigned b = 1u << 30; b; b >>= 2) {
        if (v >= r + b) {
            v -= r + b;
            r = (r >> 1) + b;
        } else {
            r >>= 1;
        }
    }
    return (int)r;
}

int main(void)
{
    unsigned seed = 42, acc = 0;
    int table[32];
    for (int i = 0; i < 32; i++)
        table[i] = (int)lcg(&seed) - (1 << 23);
    for (int i = 0; i < 32; i++) {
        int a = table[i], b = table[(i * 7 + 3) & 31] / 1000 + 1;
        if (b == 0)
            b = 7;
        tpb_printf("%2d: %9d / %6d = %6d r %6d  %08x  %-5u|\n", i, a, b, a / b, a % b, (unsigned)a, (unsigned)(a & 0xffff) % 1000u);
        acc += (unsigned)(a / b) ^ ((unsigned)a >> (i & 15));
    }
    struct point p = { -3, 77, "tpbsim" }, q;
    q = p;
    q.x *= -11;
    tpb_printf("point (%d, %d) %c%c%c, sqrt(%u) = %d, %s, %X, %p\n", q.x, q.y, q.tag[0], q.tag[1], q.tag[5], acc, isqrt(acc), "ok", acc, (void *)&p);
    tpb_puts("done");
    return (int)(acc & 0x7f);
}
