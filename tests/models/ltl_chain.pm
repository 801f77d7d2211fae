// Issue 42's LTL paths by hand: from 0 a fair coin goes to 1 ("a") or to 2 ("c",
// absorbing); 1 goes back to 0 or to 3 ("b"), which stays (0.3) or returns to 0.
// Absorption in 2 is certain; each visit to 1 is followed by 3 with probability 1/2.
dtmc

module m
  s : [0..3] init 0;
  [] s=0 -> 0.5:(s'=1) + 0.5:(s'=2);
  [] s=1 -> 0.5:(s'=0) + 0.5:(s'=3);
  [] s=2 -> (s'=2);
  [] s=3 -> 0.3:(s'=3) + 0.7:(s'=0);
endmodule

label "a" = s=1;
label "b" = s=3;
label "c" = s=2;
