"""publishing"""
