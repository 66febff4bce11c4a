# embed.cmake — cmake -DIN=FILE -DOUT=FILE.c -DNAME=ident -P embed.cmake
# Writes FILE's bytes as a NUL-terminated C array `const char NAME[]`, so that axle carries
# the emulator runtime (gpu/emu/axle_emu.h) and the prelude's warp-level primitives
# (gpu/warp.cuh) inside its binary.
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT} "/* generated from ${IN} by gpu/embed.cmake */\nconst char ${NAME}[] = {${bytes}0};\n")
