/* Built by `tpb cc` beside the user's sources (unused parts are dropped at
 * link time):
 * - the run-time routines gcc calls and Debian's libgcc for lx106 leaves out
 *   (on the ESP8266 they are in its ROM): 32-bit division and remainder,
 *   shift-subtract, one bit per step;
 * - memset, memcpy, memmove and memcmp, which gcc may call for a struct's
 *   initialisation or copy even in a freestanding build;
 * - the console: tpb_puts and a small tpb_printf over tpb_write (SIMCALL
 *   write, tpb_fw.h); on the SEQ also tpb_tx_write / tpb_tx_puts, the
 *   device side of the stdio TX ring (tpb_hal::stdio). */
#include <stdarg.h>
#include "tpb_fw.h"

unsigned __udivsi3(unsigned n, unsigned d);
unsigned __umodsi3(unsigned n, unsigned d);
int __divsi3(int n, int d);
int __modsi3(int n, int d);

static unsigned udivmod(unsigned n, unsigned d, unsigned *rem)
{
    unsigned q = 0, r = 0;
    for (int i = 31; i >= 0; i--) {
        r = (r << 1) | ((n >> i) & 1u);
        if (r >= d) {
            r -= d;
            q |= 1u << i;
        }
    }
    *rem = r;
    return q;
}

unsigned __udivsi3(unsigned n, unsigned d) { unsigned r; return udivmod(n, d, &r); }
unsigned __umodsi3(unsigned n, unsigned d) { unsigned r; udivmod(n, d, &r); return r; }

int __divsi3(int n, int d)
{
    unsigned un = n < 0 ? 0u - (unsigned)n : (unsigned)n;
    unsigned ud = d < 0 ? 0u - (unsigned)d : (unsigned)d;
    unsigned r, q = udivmod(un, ud, &r);
    return (n < 0) != (d < 0) ? (int)(0u - q) : (int)q;
}

int __modsi3(int n, int d)
{
    unsigned un = n < 0 ? 0u - (unsigned)n : (unsigned)n;
    unsigned ud = d < 0 ? 0u - (unsigned)d : (unsigned)d;
    unsigned r;
    udivmod(un, ud, &r);
    return n < 0 ? (int)(0u - r) : (int)r;
}

/* Not turned back into calls of themselves by gcc's loop-pattern pass. */
#define TPB_RT_LOOP __attribute__((optimize("no-tree-loop-distribute-patterns")))

TPB_RT_LOOP void *memset(void *d, int c, unsigned n)
{
    unsigned char *p = d;
    while (n--)
        *p++ = (unsigned char)c;
    return d;
}

TPB_RT_LOOP void *memcpy(void *d, const void *s, unsigned n)
{
    unsigned char *p = d;
    const unsigned char *q = s;
    while (n--)
        *p++ = *q++;
    return d;
}

TPB_RT_LOOP void *memmove(void *d, const void *s, unsigned n)
{
    unsigned char *p = d;
    const unsigned char *q = s;
    if (p < q) {
        while (n--)
            *p++ = *q++;
    } else {
        while (n--)
            p[n] = q[n];
    }
    return d;
}

TPB_RT_LOOP int memcmp(const void *a, const void *b, unsigned n)
{
    const unsigned char *p = a, *q = b;
    for (; n; n--, p++, q++)
        if (*p != *q)
            return *p - *q;
    return 0;
}

int tpb_puts(const char *s)
{
    unsigned n = 0;
    while (s[n])
        n++;
    tpb_write(1, s, n);
    return tpb_write(1, "\n", 1) < 0 ? -1 : (int)n + 1;
}

#ifdef TPB_CORE_SEQ
/* Descriptors queued on the TX ring since the DMA was enabled. */
static uint32_t tx_queued;

/* One chunk (at most TPB_STDIO_SLOT_BYTES) into the next slot, one descriptor. */
static int tx_chunk(const unsigned char *p, unsigned chunk)
{
    uint32_t dma = TPB_REGION_SEQ_DMA;
    uint32_t base = TPB_REG(TPB_POOL_NX_DMA_TX_RING_BASE_ADDR);
    uint32_t n = TPB_REG(TPB_POOL_NX_DMA_TX_RING_LENGTH_ADDR);
    if (n == 0)
        return -1;
    while (TPB_REG(dma + TPB_STDIO_TX_DONE) != tx_queued) {
        /* the previous descriptor retires first */
    }
    uint32_t slot = TPB_STDIO_AREA + (tx_queued % TPB_STDIO_SLOTS) * TPB_STDIO_SLOT_BYTES;
    unsigned words = (chunk + 3) / 4;
    for (unsigned w = 0; w < words; w++) {
        uint32_t v = 0;
        for (unsigned b = 0; b < 4 && 4 * w + b < chunk; b++)
            v |= (uint32_t)p[4 * w + b] << (8 * b);
        TPB_REG(dma + slot + 4 * w) = v;
    }
    uint32_t d = dma + base + 16 * (tx_queued % n);
    TPB_REG(d) = slot;                  /* source and destination: the copy stays in place */
    TPB_REG(d + 4) = slot;
    TPB_REG(d + 8) = words;
    TPB_REG(d + 12) = 0;                /* no completion semaphore */
    TPB_REG(TPB_POOL_NX_DMA_TX_RING_TAIL_INC_ADDR) = 1;
    tx_queued++;
    return (int)chunk;
}

int tpb_tx_write(const void *buf, unsigned len)
{
    const unsigned char *p = buf;
    for (unsigned sent = 0; sent < len;) {
        unsigned chunk = len - sent < TPB_STDIO_SLOT_BYTES ? len - sent : TPB_STDIO_SLOT_BYTES;
        if (tx_chunk(p + sent, chunk) < 0)
            return -1;
        sent += chunk;
    }
    return (int)len;
}

/* The string and a newline, packed into as few chunks as they fill. */
int tpb_tx_puts(const char *s)
{
    unsigned char buf[TPB_STDIO_SLOT_BYTES];
    unsigned k = 0, n = 0;
    for (;; n++) {
        unsigned char c = s[n] ? (unsigned char)s[n] : '\n';
        buf[k++] = c;
        if (k == sizeof buf || !s[n]) {
            if (tx_chunk(buf, k) < 0)
                return -1;
            k = 0;
        }
        if (!s[n])
            return (int)n + 1;
    }
}
#endif

/* The formatted text is built in a buffer and written in pieces of at most
   its size: one SIMCALL per piece. */
struct out {
    char buf[64];
    unsigned n, total;
};

static void put(struct out *o, char c)
{
    if (o->n == sizeof o->buf) {
        tpb_write(1, o->buf, o->n);
        o->n = 0;
    }
    o->buf[o->n++] = c;
    o->total++;
}

static void put_num(struct out *o, unsigned long v, unsigned base, int upper, int neg, int width, char pad, int left)
{
    char digits[12];
    int k = 0;
    const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    do {
        unsigned d;
        if (base == 16) {
            d = v & 15u;
            v >>= 4;
        } else {
            d = __umodsi3(v, 10);
            v = __udivsi3(v, 10);
        }
        digits[k++] = set[d];
    } while (v);
    int len = k + (neg ? 1 : 0);
    if (neg && pad == '0')
        put(o, '-');
    for (int i = len; !left && i < width; i++)
        put(o, pad);
    if (neg && pad != '0')
        put(o, '-');
    while (k)
        put(o, digits[--k]);
    for (int i = len; left && i < width; i++)
        put(o, ' ');
}

int tpb_printf(const char *fmt, ...)
{
    struct out o;
    o.n = o.total = 0;
    va_list ap;
    va_start(ap, fmt);
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            put(&o, *p);
            continue;
        }
        p++;
        int left = 0, width = 0;
        char pad = ' ';
        for (; *p == '-' || *p == '0'; p++) {
            if (*p == '-')
                left = 1;
            else
                pad = '0';
        }
        if (left)
            pad = ' ';
        for (; *p >= '0' && *p <= '9'; p++)
            width = width * 10 + (*p - '0');
        if (*p == 'l')
            p++;
        switch (*p) {
        case 'd':
        case 'i': {
            int v = va_arg(ap, int);
            put_num(&o, v < 0 ? 0u - (unsigned)v : (unsigned)v, 10, 0, v < 0, width, pad, left);
            break;
        }
        case 'u':
            put_num(&o, va_arg(ap, unsigned), 10, 0, 0, width, pad, left);
            break;
        case 'x':
        case 'X':
            put_num(&o, va_arg(ap, unsigned), 16, *p == 'X', 0, width, pad, left);
            break;
        case 'p':
            put(&o, '0');
            put(&o, 'x');
            put_num(&o, (unsigned long)(uintptr_t)va_arg(ap, void *), 16, 0, 0, 8, '0', 0);
            break;
        case 'c':
            put(&o, (char)va_arg(ap, int));
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            int n = 0;
            while (s[n])
                n++;
            for (int i = n; !left && i < width; i++)
                put(&o, ' ');
            for (int i = 0; i < n; i++)
                put(&o, s[i]);
            for (int i = n; left && i < width; i++)
                put(&o, ' ');
            break;
        }
        case '%':
            put(&o, '%');
            break;
        case 0:
            p--;
            break;
        default:
            put(&o, '%');
            put(&o, *p);
        }
    }
    va_end(ap);
    if (o.n)
        tpb_write(1, o.buf, o.n);
    return (int)o.total;
}
