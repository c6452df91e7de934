from rankscale.cli import main

raise SystemExit(main())
