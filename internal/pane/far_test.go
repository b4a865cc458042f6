package pane

import (
	"strings"
	"testing"
)

func TestClassifyCarrier(t *testing.T) {
	cases := []struct {
		argv string
		want CarrierUse
	}{
		{"ssh web1", CarriesShell},
		{"ssh -p 2222 -i /k/id -o StrictHostKeyChecking=no user@127.0.0.1", CarriesShell},
		{"ssh -tt -p2222 web1", CarriesShell},
		{"ssh web1 make deploy", CarriesCommand},
		{"ssh -N -L 8080:localhost:80 web1", CarriesCommand},
		{"ssh -J bastion web1", CarriesShell},
		{"/usr/bin/ssh", CarriesCommand},
		{"mosh-client -# web1 | 1.2.3.4 60001", CarriesShell},
		{"su", CarriesShell},
		{"su -", CarriesShell},
		{"su - deploy", CarriesShell},
		{"su -s /bin/zsh deploy", CarriesShell},
		{"su -c whoami deploy", CarriesCommand},
		{"su --command=id deploy", CarriesCommand},
		{"sudo -i", CarriesShell},
		{"sudo -iu postgres", CarriesShell},
		{"sudo -u postgres -i", CarriesShell},
		{"sudo -s", CarriesShell},
		{"sudo bash", CarriesShell},
		{"sudo su -", CarriesShell},
		{"sudo -u deploy bash -l", CarriesShell},
		{"sudo make install", CarriesCommand},
		{"sudo bash -c make", CarriesCommand},
		{"sudo -u postgres psql", CarriesCommand},
		{"sudo", CarriesCommand},
		{"doas -s", CarriesShell},
		{"doas vi /etc/hosts", CarriesCommand},
		{"docker exec -it box bash", CarriesShell},
		{"docker exec -it -u root box /bin/sh -l", CarriesShell},
		{"docker exec -it box sh -c make", CarriesCommand},
		{"docker run -it --rm debian", CarriesCommand},
		{"podman exec -it box zsh", CarriesShell},
		{"kubectl exec -it pod -- /bin/bash", CarriesShell},
		{"kubectl logs -f pod", CarriesCommand},
		{"unshare -m -p -f bash", CarriesShell},
		{"unshare --mount --pid --fork", CarriesShell},
		{"unshare -m make", CarriesCommand},
		{"nsenter -t 1 -m -p", CarriesShell},
		{"machinectl shell box", CarriesShell},
		{"vim", NotCarrier},
		{"bash", NotCarrier},
		{"python3", NotCarrier},
	}
	for _, c := range cases {
		if got := ClassifyCarrier(strings.Fields(c.argv)); got != c.want {
			t.Errorf("%q: want %v, got %v", c.argv, c.want, got)
		}
	}
}
