#!/bin/sh
# Never answers: a child that sleeps, holding stdout open.
sleep 60
echo "0,0"
