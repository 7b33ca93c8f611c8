; expect: unexpected-eof 2:1
