package counter

// noCopy makes `go vet -copylocks` report any copy of a struct that embeds
// it, as sync.WaitGroup's does. Every store and CfsRq embeds one: a copied
// Store would share its mapping and double-close it, a copied CfsRq would
// carry the same tg_load_avg_contrib twice and push it twice.
type noCopy struct{}

// Lock is a no-op used by -copylocks.
func (*noCopy) Lock() {}

// Unlock is a no-op used by -copylocks.
func (*noCopy) Unlock() {}
