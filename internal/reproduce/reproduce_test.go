package reproduce
