from kafkactl.cli.root import main

main()
