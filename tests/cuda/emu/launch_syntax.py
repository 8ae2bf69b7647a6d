#!/usr/bin/env python3
"""launch_syntax.py IN.cu OUT.cpp: rewrites a CUDA test program into plain
C++ for the host emulator (emu/cuda_runtime.h): kernel<<<g, b[, s]>>>(args)
becomes zt_launch(dim3(g), dim3(b), s, [=]{ kernel(args); }), and
`extern __shared__ T name[];` a pointer to the emulator's buffer."""
import re
import sys


def split_top(text):
    parts, depth, cur = [], 0, ''
    for ch in text:
        depth += ch == '('
        depth -= ch == ')'
        if ch == ',' and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += ch
    return parts + [cur]


def rewrite(s):
    s = re.sub(r'extern __shared__ (\w+) (\w+)\[\];',
               r'static \1 *const \2 = (\1 *)zt_dyn_shared;', s)
    out, i = [], 0
    while True:
        j = s.find('<<<', i)
        if j < 0:
            return ''.join(out) + s[i:]
        k = j
        while s[k - 1].isalnum() or s[k - 1] == '_':
            k -= 1
        e = s.find('>>>', j)
        cfg = split_top(s[j + 3:e])
        p = q = e + 3
        depth = 0
        while True:
            depth += s[q] == '('
            depth -= s[q] == ')'
            if depth == 0 and s[q] == ')':
                break
            q += 1
        shmem = cfg[2] if len(cfg) > 2 else '0'
        out.append(s[i:k])
        out.append('zt_launch(dim3(%s), dim3(%s), %s, [=]{ %s%s; })'
                   % (cfg[0], cfg[1], shmem, s[k:j], s[p:q + 1]))
        i = q + 1


if __name__ == '__main__':
    with open(sys.argv[1]) as f:
        text = f.read()
    with open(sys.argv[2], 'w') as f:
        f.write(rewrite(text))
