/* The run-time routines gcc calls and Debian's libgcc for lx106 leaves out
 * (on the ESP8266 they are in its ROM): 32-bit division and remainder.
 * Shift-subtract, one bit per step; built by `tpb cc` beside the user's
 * sources. */
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
